package semantic

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// packetOf decodes the packet of a diagnostics result.
func packetOf(t *testing.T, out map[string]any) *diagnostic.Packet {
	t.Helper()
	raw, ok := out["packet"]
	if !ok {
		t.Fatalf("no packet in %s", dump(out))
	}
	b, err := json.Marshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	var p diagnostic.Packet
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	return &p
}

// The diagnostics operation shapes its diagnostics as a feedback packet
// when asked: pyright's type error in broken() gets the symbol hint;
// typescript-language-server's missing name gets its import fix as an
// apply_code_action call.
func TestDiagnosticsPacket(t *testing.T) {
	t.Run("pyright guided", func(t *testing.T) {
		e, _ := pyEngine(t)
		out := mustInvoke(t, e, "diagnostics", map[string]any{"file": "zoo/keeper.py", "packet": "guided"})
		p := packetOf(t, out)
		if p.Mode != diagnostic.PacketGuided || p.Counts.Error != 1 || len(p.Items) != 1 {
			t.Fatalf("packet = %s", dump(p))
		}
		it := p.Items[0]
		if it.ID != "reportAssignmentType" || it.Location != "zoo/keeper.py:13:18" || it.Severity != "error" || it.Symbol != "broken" {
			t.Errorf("item = %s", dump(it))
		}
		// The full diagnostics stay: the packet is added, not substituted.
		if get(t, out, "counts.error") != 1 {
			t.Errorf("diagnostics = %s", dump(out))
		}
	})
	t.Run("typescript guided", func(t *testing.T) {
		e, _ := tsEngine(t)
		out := mustInvoke(t, e, "diagnostics", map[string]any{"file": "src/usage.ts", "packet": "guided"})
		p := packetOf(t, out)
		if p.Mode != diagnostic.PacketGuided || len(p.Items) == 0 {
			t.Fatalf("packet = %s", dump(p))
		}
		it := p.Items[0]
		if it.Location != "src/usage.ts:2:14" || it.Symbol != "unit" || !strings.Contains(it.Message, "Circle") {
			t.Errorf("item = %s", dump(it))
		}
		var fix *diagnostic.Suggestion
		for i, s := range it.Suggestions {
			if strings.Contains(s.Title, `"./circle.js"`) {
				fix = &it.Suggestions[i]
				break
			}
		}
		if fix == nil || fix.Tool != "typescript.apply_code_action" || fix.Input["file"] != "src/usage.ts" || fix.Input["title"] != fix.Title {
			t.Errorf("suggestions = %s", dump(it.Suggestions))
		}
	})
	t.Run("raw and absent add no packet", func(t *testing.T) {
		e, _ := pyEngine(t)
		for _, in := range []map[string]any{
			{"file": "zoo/keeper.py"},
			{"file": "zoo/keeper.py", "packet": "raw"},
		} {
			out := mustInvoke(t, e, "diagnostics", in)
			if _, ok := out["packet"]; ok {
				t.Errorf("%v: packet in %s", in, dump(out))
			}
		}
	})
	t.Run("unknown packet is invalid input", func(t *testing.T) {
		e, _ := pyEngine(t)
		for _, mode := range []string{"evil", "COMPACT", " raw"} {
			_, err := invoke(t, e, "diagnostics", map[string]any{"file": "zoo/keeper.py", "packet": mode})
			wantCode(t, err, failure.InvalidInput, "packet")
		}
	})
}
