package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// testToken is the bearer token of the HTTP servers tests start.
const testToken = "langhost-test-token"

// waitStderr waits for a line of s's stderr containing prefix and
// returns what follows prefix on it.
func waitStderr(t *testing.T, s *server, prefix string) string {
	t.Helper()
	var rest string
	mcpWaitFor(t, "stderr line "+prefix, time.Minute, func() bool {
		for line := range strings.Lines(s.stderr.String()) {
			if _, r, ok := strings.Cut(strings.TrimSpace(line), prefix); ok {
				rest = r
				return true
			}
		}
		return false
	})
	return rest
}

// TestMCPHTTPGeneratedToken: on loopback with no token configured, the
// server still requires one: it generates it, writes it owner-only to
// $XDG_RUNTIME_DIR/langhost and says where; another local user, who
// cannot read the file, gets 401. The file goes when the server stops.
func TestMCPHTTPGeneratedToken(t *testing.T) {
	f := newMCPFixture(t)
	runtime := filepath.Join(t.TempDir(), "run")
	cmd := f.command(t, "--http", "127.0.0.1:0")
	cmd.Env = append(cmd.Env, "XDG_RUNTIME_DIR="+runtime)
	s := startServer(t, cmd)
	url := waitStderr(t, s, "serving streamable HTTP on ")
	file, _, _ := strings.Cut(waitStderr(t, s, "bearer token in "), " ")
	if filepath.Dir(file) != filepath.Join(runtime, "langhost") {
		t.Fatalf("token file %s not in the runtime directory", file)
	}
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v, mode %v", err, fi.Mode().Perm())
	}
	raw, _ := os.ReadFile(file)
	token := strings.TrimSpace(string(raw))
	if strings.Contains(s.stderr.String(), token) {
		t.Error("the token itself is printed on stderr")
	}

	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("request without the token: status %d, want 401", resp.StatusCode)
	}
	if _, err := mcp.NewClient(&mcp.Implementation{Name: "other-user"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil); err == nil {
		t.Error("a client without the token connected")
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "owner"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerTransport{token, http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res, _ := callTool(t, cs, "mcptest_echo", map[string]any{"text": "hi"}); res.IsError {
		t.Errorf("call with the token: %s", resultText(res))
	}
	cs.Close()
	if code := s.signalAndWait(t, syscall.SIGTERM); code != 0 {
		t.Errorf("exit code %d; stderr:\n%s", code, s.stderr)
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("token file left behind: %v", err)
	}
}

// TestMCPHTTPInsecureNoAuth: turning authentication off is loud, and
// refused off loopback.
func TestMCPHTTPInsecureNoAuth(t *testing.T) {
	f := newMCPFixture(t)
	s := startServer(t, f.command(t, "--http", "127.0.0.1:0", "--http-insecure-no-auth"))
	url := waitStderr(t, s, "serving streamable HTTP on ")
	if !strings.Contains(s.stderr.String(), "WARNING") {
		t.Errorf("no warning on stderr:\n%s", s.stderr)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "anyone"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs.Close()

	for _, args := range [][]string{{"--http", "0.0.0.0:0", "--http-insecure-no-auth"}, {"--http-insecure-no-auth"}} {
		cmd := f.command(t, args...)
		out, err := cmd.CombinedOutput()
		var exit interface{ ExitCode() int }
		if !errors.As(err, &exit) || exit.ExitCode() == 0 || !strings.Contains(string(out), "http-insecure-no-auth") {
			t.Errorf("%v: %v\n%s", args, err, out)
		}
	}
}

// TestMCPConcurrentCallsCapped: a client firing ten calls at once, each
// starting two processes, never has more than mcp.max_concurrent calls'
// processes running; the rest wait and are canceled with the client.
func TestMCPConcurrentCallsCapped(t *testing.T) {
	const limit, calls = 2, 10
	f := newMCPFixture(t)
	_, url := startHTTPServer(t, f, []string{"LANGHOST_MCP_MAX_CONCURRENT=2"})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "flood"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerTransport{testToken, http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	marker := newMarker()
	ctx, cancel := context.WithCancel(context.Background())
	for range calls {
		callInBackground(ctx, cs, "mcptest_sleep", map[string]any{"seconds": marker})
	}
	waitSleeping(t, marker, 2*limit)
	// The calls beyond the limit are queued, not running: the count stays.
	for range 20 {
		sleeps := 0
		for _, args := range processesWith(t, marker) {
			if filepath.Base(args[0]) == "sleep" {
				sleeps++
			}
		}
		if sleeps > 2*limit {
			t.Fatalf("%d sleep processes running, want at most %d", sleeps, 2*limit)
		}
		time.Sleep(25 * time.Millisecond)
	}
	cancel()
	waitNoneMarked(t, marker)
}

// TestMCPHTTPTrustedWorkspaceTokenIgnored: a token in a trusted
// workspace's .langhost.yaml is known to the repository's authors, so it
// authenticates nobody: off loopback the server refuses to start.
func TestMCPHTTPTrustedWorkspaceTokenIgnored(t *testing.T) {
	f := newMCPFixture(t)
	write(t, filepath.Join(f.workspace, ".langhost.yaml"), "mcp:\n  token: everyone-knows-this\n")
	cmd := f.command(t, "--http", "0.0.0.0:0", "--trust-workspace")
	out, err := cmd.CombinedOutput()
	var exit interface{ ExitCode() int }
	if !errors.As(err, &exit) || exit.ExitCode() != 4 {
		t.Fatalf("exit = %v, want code 4\n%s", err, out)
	}
	if !strings.Contains(string(out), "mcp.token from") || strings.Contains(string(out), "everyone-knows-this") {
		t.Errorf("output:\n%s", out)
	}
}

// TestMCPEditFileLimits: over MCP, go_edit_file with twenty thousand
// edits, or edits on a file over 8 MiB, is invalid_input naming edits,
// and nothing is written.
func TestMCPEditFileLimits(t *testing.T) {
	f := goWorkspace(t)
	big := "package main\n\n// " + strings.Repeat("x", 9<<20) + "\n"
	write(t, filepath.Join(f.workspace, "big.go"), big)
	cs, _ := startStdio(t, f, nil, "--prewarm=false")
	many := make([]any, 20000)
	for i := range many {
		many[i] = map[string]any{"old_text": fmt.Sprintf("x%d", i), "new_text": "y"}
	}
	for _, c := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"20k edits", map[string]any{"file": "main.go", "edits": many, "dry_run": true}, "at most 1000"},
		{"9 MiB file", map[string]any{"file": "big.go", "edits": []any{map[string]any{"old_text": "xx", "new_text": "y"}}, "dry_run": true}, "as content"},
	} {
		res, st := callTool(t, cs, "go_edit_file", c.args)
		e, _ := st["error"].(map[string]any)
		if !res.IsError || e["code"] != "invalid_input" || e["field"] != "edits" || !strings.Contains(fmt.Sprint(e["message"]), c.want) {
			t.Errorf("%s: isError=%v error=%v", c.name, res.IsError, e)
		}
	}
	if got := readWS(t, f, "big.go"); got != big {
		t.Error("big.go changed")
	}
}
