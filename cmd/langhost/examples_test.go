package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Every Example of every command must run as written: the command exists,
// its flags parse, tool ids and input keys exist in the shipped specs. The
// commands that only read run for real against this repository; `run` is
// checked with validate-input (same id and input, nothing runs).
func TestHelpExamples(t *testing.T) {
	root := newRootCmd(&factory{io: &ioStreams{}})
	repo, _ := filepath.Abs("../..")
	var checked int
	walk(root, func(cmd *cobra.Command) {
		for line := range strings.Lines(cmd.Example) {
			args, ok := exampleArgs(line)
			if !ok {
				continue
			}
			checked++
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				target, rest, err := root.Find(args)
				if err != nil || target == root {
					t.Fatalf("no such command: %v", err)
				}
				if err := target.ParseFlags(rest); err != nil {
					t.Fatalf("flags: %v", err)
				}
				positional := target.Flags().Args()
				if target.Args != nil {
					if err := target.Args(target, positional); err != nil {
						t.Fatalf("arguments: %v", err)
					}
				}
				run := readOnlyExample(target, args, rest)
				if run == nil {
					return
				}
				c := newCLI(t)
				c.raw = true
				t.Chdir(repo) // file arguments are relative to the repository
				o := c.run(append([]string{"--workspace", repo}, run...)...)
				if o.code != 0 {
					t.Errorf("langhost %s: exit %d\nstdout: %.2000s\nstderr: %.2000s", strings.Join(run, " "), o.code, o.stdout, o.stderr)
				}
			})
		}
	})
	if checked < 20 {
		t.Errorf("only %d examples found", checked)
	}
}

// readOnlyExample returns the arguments to run for an example: itself when
// it only reads, validate-input for a run, nil when it cannot run in a
// test (it serves, writes or needs files the example only names).
func readOnlyExample(cmd *cobra.Command, args, rest []string) []string {
	switch commandPath(cmd) {
	case "run":
		var keep []string
		for i := 0; i < len(rest); i++ {
			switch rest[i] {
			case "--yes", "-y", "--no-daemon":
			case "--packet":
				// run turns it into the packet input.
				i++
				keep = append(keep, "packet="+rest[i])
			case "--jq":
				// What the filter selects depends on the run; it must
				// compile.
				i++
				if _, err := compileJQ(rest[i]); err != nil {
					return []string{"--jq", rest[i], "version"}
				}
			default:
				keep = append(keep, rest[i])
			}
		}
		return append([]string{"validate-input"}, keep...)
	case "parse":
		// The saved output it names is not there; the tool id must be.
		return []string{"tools", "describe", cmd.Flags().Arg(0)}
	case "tools.list", "tools.describe", "validate-input", "languages", "schema", "version", "validate":
		return args
	}
	return nil
}

// exampleArgs splits an example line into the langhost arguments it runs:
// the part after "langhost" up to a shell operator, with quotes removed.
func exampleArgs(line string) ([]string, bool) {
	_, after, ok := strings.Cut(line, "langhost ")
	if !ok {
		return nil, false
	}
	var args []string
	var cur strings.Builder
	var quote rune
	inWord := false
	for _, r := range after {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				args = append(args, cur.String())
				cur.Reset()
				inWord = false
			}
		case strings.ContainsRune("|;>&#", r):
			if inWord {
				args = append(args, cur.String())
			}
			return trimRedirect(args), true
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		args = append(args, cur.String())
	}
	return trimRedirect(args), true
}

// trimRedirect drops a trailing "2" of "2>".
func trimRedirect(args []string) []string {
	if n := len(args); n > 0 && args[n-1] == "2" {
		return args[:n-1]
	}
	return args
}

func walk(cmd *cobra.Command, fn func(*cobra.Command)) {
	fn(cmd)
	for _, c := range cmd.Commands() {
		walk(c, fn)
	}
}

func TestExampleArgs(t *testing.T) {
	tests := []struct {
		line string
		want string
	}{
		{"  langhost run go.test --input '{\"packages\": \"./...\"}'\n", `run|go.test|--input|{"packages": "./..."}`},
		{"  go vet ./... 2> vet.txt; langhost parse go.vet vet.txt --stream stderr", "parse|go.vet|vet.txt|--stream|stderr"},
		{"  langhost schema > langhost.schema.json", "schema"},
		{"  go test -json ./... | langhost parse go.test", "parse|go.test"},
		{"  langhost run go.test --jq '.data.tests.failures[].name'", "run|go.test|--jq|.data.tests.failures[].name"},
	}
	for _, tt := range tests {
		args, ok := exampleArgs(tt.line)
		if got := strings.Join(args, "|"); !ok || got != tt.want {
			t.Errorf("exampleArgs(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}
