package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Plugin and language server logs (gopls WARN lines arrive through the
// host logger) go to the log file; --verbose, and the commands whose
// stderr is a log (mcp), keep them on stderr.
func TestLogDestination(t *testing.T) {
	tests := []struct {
		args   []string
		stderr bool
	}{
		{[]string{"run"}, false},
		{[]string{"tools", "list"}, false},
		{[]string{"run", "--verbose"}, true},
		{[]string{"tools", "list", "-v"}, true},
		{[]string{"mcp"}, true},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var errOut bytes.Buffer
			logPath := filepath.Join(t.TempDir(), "cache", "langhost.log")
			f := &factory{io: &ioStreams{ErrOut: &errOut}, logPath: logPath}
			root := newRootCmd(f)
			cmd, rest, err := root.Find(tt.args)
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.ParseFlags(rest); err != nil {
				t.Fatal(err)
			}
			f.cmd = cmd
			f.log().Named("plugins.go-agent").Warn("gopls: WARN no views")
			if f.logFile != nil {
				if err := f.logFile.Close(); err != nil {
					t.Fatal(err)
				}
			}
			logged, _ := os.ReadFile(logPath)
			inFile := strings.Contains(string(logged), "gopls: WARN no views")
			onStderr := strings.Contains(errOut.String(), "gopls: WARN no views")
			if onStderr != tt.stderr || inFile == tt.stderr {
				t.Errorf("stderr %v (want %v), log file %v\nstderr: %s\nfile: %s", onStderr, tt.stderr, inFile, errOut.String(), logged)
			}
			if !tt.stderr {
				if st, err := os.Stat(logPath); err != nil || st.Mode().Perm() != 0o600 {
					t.Errorf("log file mode: %v %v", st, err)
				}
			}
		})
	}
}

// A command that logs nothing creates no file; one that cannot write the
// file says so on stderr and logs there instead of losing the line.
func TestLogFileFallbacks(t *testing.T) {
	dir := t.TempDir()
	l := &lazyFile{path: filepath.Join(dir, "never.log"), fallback: &bytes.Buffer{}}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(l.path); !os.IsNotExist(err) {
		t.Errorf("unused log file created: %v", err)
	}
	// A symlink planted where the log goes is not followed.
	target := filepath.Join(dir, "target")
	write(t, target, "precious\n")
	link := filepath.Join(dir, "link.log")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	l = &lazyFile{path: link, fallback: &errOut}
	if _, err := l.Write([]byte("line\n")); err != nil {
		t.Fatal(err)
	}
	_ = l.Close()
	if b, _ := os.ReadFile(target); string(b) != "precious\n" {
		t.Errorf("wrote through a symlink: %q", b)
	}
	if !strings.Contains(errOut.String(), "not a regular file") || !strings.Contains(errOut.String(), "line\n") {
		t.Errorf("fallback: %q", errOut.String())
	}
	// A large log is rotated once, not grown without bound.
	big := filepath.Join(dir, "big.log")
	write(t, big, strings.Repeat("x", maxLogSize+1))
	l = &lazyFile{path: big, fallback: &errOut}
	if _, err := l.Write([]byte("fresh\n")); err != nil {
		t.Fatal(err)
	}
	_ = l.Close()
	if b, _ := os.ReadFile(big); string(b) != "fresh\n" {
		t.Errorf("rotated log holds %d bytes", len(b))
	}
	if st, err := os.Stat(big + ".1"); err != nil || st.Size() != maxLogSize+1 {
		t.Errorf("old generation: %v %v", st, err)
	}
}

// With a real gopls behind the semantic plugin, a person running a command
// sees its result and nothing of the plugin's or gopls's logs, which are
// in the log file; --verbose shows them.
func TestLanguageServerLogsStayOffStderr(t *testing.T) {
	if _, err := exec.LookPath("gopls"); err != nil {
		t.Fatalf("gopls is needed (scripts/install-tools.sh): %v", err)
	}
	bin := langhostBinary(t)
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(ws, "go.mod"), "module example.com/ws\n\ngo 1.26\n")
	write(t, filepath.Join(ws, "main.go"), "package main\n\ntype Shape struct{}\n\nfunc main() { _ = Shape{} }\n")
	logFile := filepath.Join(dir, "cache", "langhost", "langhost.log")
	run := func(extra ...string) (string, string) {
		t.Helper()
		args := append([]string{"--workspace", ws, "run", "go.find_references", "symbol=Shape", "--no-daemon",
			"--format", "text", "--log-level", "debug"}, extra...)
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"),
			"XDG_CONFIG_HOME="+configDir(t), "LANGHOST_DAEMON=0")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %v\nstdout: %s\nstderr: %s", args, err, stdout.String(), stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	stdout, stderr := run()
	if !strings.Contains(stdout, "main.go  5") || stderr != "" {
		t.Errorf("stdout:\n%s\nstderr (want none):\n%s", stdout, stderr)
	}
	logged, err := os.ReadFile(logFile)
	if err != nil || !strings.Contains(string(logged), "[DEBUG] langhost.plugins") {
		t.Errorf("log file %s: %v\n%.3000s", logFile, err, logged)
	}
	_, stderr = run("--verbose")
	if !strings.Contains(stderr, "[DEBUG] langhost.plugins") {
		t.Errorf("--verbose: the logs are not on stderr:\n%.3000s", stderr)
	}
}
