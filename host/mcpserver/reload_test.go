package mcpserver_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/config"
	"github.com/langhost/langhost/host/mcpserver"
	"github.com/langhost/langhost/host/spec"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// syncBuffer is a log destination shared with the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

const extraTool = `  extra:
    command: echo
    args: ["extra"]
    description: A tool added while serving
    readOnly: true
`

// TestReloadOnSpecChange: a tool added to a spec file while the server
// runs reaches the client with notifications/tools/list_changed; a
// broken edit keeps the last good spec and says why.
func TestReloadOnSpecChange(t *testing.T) {
	dir := t.TempDir()
	specs, ws := filepath.Join(dir, "specs"), filepath.Join(dir, "ws")
	for _, d := range []string{specs, ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	specFile := filepath.Join(specs, "demo.yaml")
	if err := os.WriteFile(specFile, []byte(testSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "a.demo"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	logger := hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Info})
	cfg := &config.Config{Workspace: ws, Languages: []string{specs}, Timeout: time.Minute, MaxOutput: 1 << 20}
	load := func(ctx context.Context, wrap func([]spec.Source) []spec.Source) (*host.Host, error) {
		return host.Open(ctx, cfg, logger, host.Options{SpecSources: wrap})
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := mcpserver.Open(ctx, load, mcpserver.Options{Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if err := srv.Watch(ctx, mcpserver.WatchPaths(srv.Host()), 20*time.Millisecond); err != nil {
		t.Fatal(err)
	}

	changed := make(chan struct{}, 10)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "test"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if names := toolNames(t, cs); !contains(names, "demo_echo") || contains(names, "demo_extra") {
		t.Fatalf("tools before = %v", names)
	}

	// A tool appended to the spec.
	good := strings.Replace(testSpec, "tools:\n", "tools:\n"+extraTool, 1)
	if err := os.WriteFile(specFile, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(30 * time.Second):
		t.Fatalf("no tools/list_changed after the spec changed; log:\n%s", logs)
	}
	names := toolNames(t, cs)
	if !contains(names, "demo_extra") || !contains(names, "demo_echo") {
		t.Fatalf("tools after adding = %v", names)
	}
	if res, st := call(t, cs, "demo_extra", nil); res.IsError || st["stdout"] != "extra\n" {
		t.Errorf("the new tool: %s", text(res))
	}

	// A broken edit: the server keeps the last good version.
	broken := strings.Replace(good, "    command: echo\n    args: [\"extra\"]", "    command: [echo\n    args: [\"extra\"]", 1)
	if err := os.WriteFile(specFile, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	if again, err := srv.Reload(ctx); err != nil || again {
		t.Errorf("reload of a broken spec: changed %v, err %v", again, err)
	}
	names = toolNames(t, cs)
	if !contains(names, "demo_extra") || !contains(names, "demo_echo") {
		t.Errorf("tools after a broken edit = %v", names)
	}
	if res, _ := call(t, cs, "demo_echo", map[string]any{"text": "still"}); res.IsError {
		t.Errorf("call after a broken edit: %s", text(res))
	}
	if l := logs.String(); !strings.Contains(l, "keeping its last good version") || !strings.Contains(l, specFile+":") {
		t.Errorf("the log does not say which file broke and where:\n%s", l)
	}

	// Removing the tool again removes it from the client's list.
	if err := os.WriteFile(specFile, []byte(testSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if names := toolNames(t, cs); contains(names, "demo_extra") {
		t.Errorf("removed tool still listed: %v", names)
	}
}
