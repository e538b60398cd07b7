package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

var updateCLIDoc = flag.Bool("update-cli-doc", false, "rewrite ../../docs/cli.md from the command definitions")

const cliDocPath = "../../docs/cli.md"

// TestCLIReferenceIsFresh fails when docs/cli.md no longer matches what
// the command definitions generate, so the reference cannot go stale.
// Regenerate with `go test ./cmd/langhost -run TestCLIReferenceIsFresh -update-cli-doc`.
func TestCLIReferenceIsFresh(t *testing.T) {
	var buf bytes.Buffer
	writeCLIReference(&buf, newRootCmd(&factory{io: &ioStreams{}}))
	if *updateCLIDoc {
		if err := os.WriteFile(cliDocPath, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	committed, err := os.ReadFile(cliDocPath)
	if err != nil {
		t.Fatalf("%v (generate it with: go test ./cmd/langhost -run TestCLIReferenceIsFresh -update-cli-doc)", err)
	}
	if !bytes.Equal(committed, buf.Bytes()) {
		t.Fatal("docs/cli.md is stale: regenerate it with `go test ./cmd/langhost -run TestCLIReferenceIsFresh -update-cli-doc` and commit it")
	}
}

// writeCLIReference writes the Markdown reference of every command that
// is not hidden: its usage, description, examples and flags, the global
// flags once at the top.
func writeCLIReference(b *bytes.Buffer, root *cobra.Command) {
	b.WriteString("# CLI reference\n\n")
	b.WriteString("Generated from the command definitions by `go test ./cmd/langhost -run TestCLIReferenceIsFresh -update-cli-doc`; do not edit by hand. `langhost help COMMAND` prints the same.\n\n")
	b.WriteString("## Global flags\n\nEvery command takes these.\n\n```\n")
	b.WriteString(root.PersistentFlags().FlagUsagesWrapped(100))
	b.WriteString("```\n")
	walk(root, func(cmd *cobra.Command) {
		if cmd == root || !cmd.IsAvailableCommand() && !cmd.IsAdditionalHelpTopicCommand() {
			return
		}
		for p := cmd; p != nil; p = p.Parent() {
			if p.Hidden {
				return
			}
		}
		fmt.Fprintf(b, "\n## %s\n\n", cmd.CommandPath())
		b.WriteString(cmd.Short + ".\n")
		if cmd.Long != "" {
			b.WriteString("\n" + strings.TrimSpace(cmd.Long) + "\n")
		}
		if cmd.Runnable() {
			fmt.Fprintf(b, "\n```\n%s\n```\n", cmd.UseLine())
		}
		if len(cmd.Aliases) > 0 {
			fmt.Fprintf(b, "\nAliases: `%s`.\n", strings.Join(cmd.Aliases, "`, `"))
		}
		if cmd.Example != "" {
			fmt.Fprintf(b, "\nExamples:\n\n```\n%s\n```\n", strings.TrimRight(cmd.Example, "\n"))
		}
		if fl := cmd.NonInheritedFlags(); fl.HasAvailableFlags() {
			fmt.Fprintf(b, "\nFlags:\n\n```\n%s```\n", fl.FlagUsagesWrapped(100))
		}
	})
}
