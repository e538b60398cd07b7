package semantictool_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/config"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/plugins/builtin"
	"github.com/langhost/langhost/plugins/builtin/builtintest"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
)

// pyxSpec is Python under another id whose spec asks for compact packets.
const pyxSpec = `language: {id: pyx, extensions: [".py"]}
packet: compact
semantic:
  command: pyright-langserver
  args: ["--stdio"]
  languageIds: {".py": "python"}
  readyTimeout: 2m
  readyMessage: 'Found \d+ source files?|No source files found'
`

// The spec's packet is the default of semantic operations that take one;
// a call that asks otherwise wins.
func TestSpecDefaultPacket(t *testing.T) {
	builtintest.RequireTools(t, "pyright-langserver")
	specs, ws := t.TempDir(), t.TempDir()
	for name, data := range map[string]string{
		filepath.Join(specs, "pyx.yaml"):        pyxSpec,
		filepath.Join(ws, "pyrightconfig.json"): "{}\n",
		filepath.Join(ws, "a.py"):               "def broken() -> int:\n    count: int = \"many\"\n    return count\n",
	} {
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := config.Load(config.Paths{}, nil, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	cfg.Workspace, cfg.Languages = ws, []string{specs}
	h, err := host.Open(context.Background(), cfg, hclog.NewNullLogger(), host.Options{Builtins: builtin.Agents()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	if len(h.Specs.Problems) != 0 {
		t.Fatalf("problems: %v", h.Specs.Problems)
	}
	packetOf := func(input map[string]any) *diagnostic.Packet {
		t.Helper()
		res, err := h.Registry.Call(context.Background(), "pyx.diagnostics", registry.Call{WorkspaceCode: true, Input: input})
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Packet *diagnostic.Packet `json:"packet"`
		}
		if err := json.Unmarshal(res.Data, &out); err != nil {
			t.Fatal(err)
		}
		return out.Packet
	}
	p := packetOf(map[string]any{"file": "a.py"})
	if p == nil || p.Mode != "compact" || len(p.Items) != 1 || p.Items[0].Location != "a.py:2:18" || p.Items[0].Symbol != "broken" {
		t.Errorf("default packet = %+v", p)
	}
	if p := packetOf(map[string]any{"file": "a.py", "packet": "raw"}); p != nil {
		t.Errorf("raw asked, packet = %+v", p)
	}
	// Operations without a packet input are called as before.
	if _, err := h.Registry.Call(context.Background(), "pyx.file_symbols", registry.Call{WorkspaceCode: true, Input: map[string]any{"file": "a.py"}}); err != nil {
		t.Errorf("file_symbols: %v", err)
	}
}
