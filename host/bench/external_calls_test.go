package bench_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/bench"
	"github.com/langhost/langhost/plugins/builtin/builtintest"
)

// TestExternalRunRecordsLanghostCalls: an external agent CLI reaches
// langhost over MCP (interface mcp by default), and the run records
// whether it called langhost's tools at all: once for a CLI whose MCP
// server got the bench's environment, unknown for one that never started
// langhost mcp.
func TestExternalRunRecordsLanghostCalls(t *testing.T) {
	builtintest.RequireTools(t, "go")
	exe := langhostBinary(t)
	s, err := bench.LoadScenario(filepath.Join(shipped, "go-fix-failing-test.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// A stand-in for an agent CLI: it starts langhost mcp as its MCP
	// server, with its own environment, and makes one tool call.
	session := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"cli","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"workspace_list_files","arguments":{}}}
`
	configs := []bench.RunConfig{
		{Name: "mcp-cli", Command: []string{"sh", "-c", `(printf '%s' "$1"; sleep 3) | "$2" mcp --workspace "$3" --prewarm=false >/dev/null`, "agent", session, exe, "{workspace}"}},
		{Name: "noop", Command: []string{"true"}},
		// Codex starts its MCP servers with a short list of variables:
		// the call is still counted.
		{Name: "stripped-env", Command: []string{"sh", "-c", `(printf '%s' "$1"; sleep 3) | env -i HOME="$HOME" PATH="$PATH" "$2" mcp --workspace "$3" --prewarm=false >/dev/null`, "agent", session, exe, "{workspace}"}},
	}
	if err := bench.NormalizeConfigs("test", configs); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	results, err := bench.Run(context.Background(), bench.Options{Out: out, OpenHost: openHost, Langhost: exe}, []*bench.Scenario{s}, configs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.Interface != bench.InterfaceMCP {
			t.Errorf("%s: interface %q, want mcp for an external CLI", r.Config, r.Interface)
		}
	}
	if n := results[0].LanghostCalls; n == nil || *n != 1 {
		t.Errorf("mcp-cli: langhost calls %v, want 1", n)
	}
	if n := results[1].LanghostCalls; n != nil {
		t.Errorf("noop: langhost calls %d, want unknown", *n)
	}
	if n := results[2].LanghostCalls; n == nil || *n != 1 {
		t.Errorf("stripped-env: langhost calls %v, want 1", n)
	}
	rep, err := bench.LoadReport(out)
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "LANGHOST") || !strings.Contains(text.String(), "yes (1)") {
		t.Errorf("the report does not say whether langhost was called:\n%s", text.String())
	}
}
