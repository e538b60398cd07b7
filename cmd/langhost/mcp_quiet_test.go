package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// idleServer starts `langhost mcp` on a Go workspace, initializes a
// session by hand and waits until the language server is warm, so that
// the server is idle.
func idleServer(t testing.TB, f mcpFixture) (cmd *exec.Cmd, stdin io.WriteCloser, stderr *lockedBuffer, done chan error) {
	t.Helper()
	cmd = f.command(t)
	stderr = &lockedBuffer{}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done = make(chan error, 1)
	lines := bufio.NewScanner(stdout)
	send := func(msg string) {
		if _, err := fmt.Fprintln(stdin, msg); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if !lines.Scan() || !strings.Contains(lines.Text(), `"id":1`) {
		t.Fatalf("initialize: %q %v\nstderr:\n%s", lines.Text(), lines.Err(), stderr)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// A file_symbols call waits for the prewarmed server: then it is idle.
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"go_file_symbols","arguments":{"file":"main.go"}}}`)
	if !lines.Scan() || !strings.Contains(lines.Text(), `"id":2`) {
		t.Fatalf("file_symbols: %q %v\nstderr:\n%s", lines.Text(), lines.Err(), stderr)
	}
	go func() {
		_, _ = io.Copy(io.Discard, stdout)
		done <- cmd.Wait()
	}()
	return cmd, stdin, stderr, done
}

func waitExit(t testing.TB, cmd *exec.Cmd, done chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("langhost mcp did not exit")
		return nil
	}
}

// TestMCPQuietShutdown: an idle server exits when the client closes its
// stdin, and on SIGINT, with status 0 and nothing on stderr: clients log
// a server's stderr as errors.
func TestMCPQuietShutdown(t *testing.T) {
	requireGopls(t)
	for _, how := range []string{"stdin closed", "SIGINT"} {
		t.Run(how, func(t *testing.T) {
			f := goWorkspace(t)
			cmd, stdin, stderr, done := idleServer(t, f)
			if how == "SIGINT" {
				_ = cmd.Process.Signal(os.Interrupt)
			} else {
				_ = stdin.Close()
			}
			if err := waitExit(t, cmd, done); err != nil {
				t.Errorf("exit: %v", err)
			}
			if s := stderr.String(); s != "" {
				t.Errorf("stderr:\n%s", s)
			}
		})
	}
}

// BenchmarkMCPExitIdle measures how long an idle server with a warm
// gopls takes to exit once the client closes stdin (target: 100 ms).
func BenchmarkMCPExitIdle(b *testing.B) {
	if _, err := exec.LookPath("gopls"); err != nil {
		b.Skip("gopls is not installed")
	}
	f := goWorkspace(b)
	for b.Loop() {
		b.StopTimer()
		cmd, stdin, _, done := idleServer(b, f)
		b.StartTimer()
		_ = stdin.Close()
		_ = waitExit(b, cmd, done)
	}
}
