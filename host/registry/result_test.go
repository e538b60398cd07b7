package registry

import (
	"encoding/json"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
)

// TestResultJSON: an operation's result object is merged beside the
// result's own keys (no data.data), the result's keys win a clash, counts
// and diagnostics are never null, and decoding gives back what was
// encoded.
func TestResultJSON(t *testing.T) {
	tests := []struct {
		name string
		res  Result
		want string
	}{
		{"empty", Result{OK: true},
			`{"ok":true,"exit_code":0,"duration_ms":0,"diagnostics":[],"counts":{"error":0,"warning":0,"info":0,"hint":0}}`},
		{"object data merged", Result{OK: true, Data: json.RawMessage(`{"references":[{"path":"a.go"}],"ok":"spoofed","total":1}`)},
			`{"ok":true,"exit_code":0,"duration_ms":0,"diagnostics":[],"counts":{"error":0,"warning":0,"info":0,"hint":0},"references":[{"path":"a.go"}],"total":1}`},
		{"other data kept", Result{OK: true, Data: json.RawMessage(`[1,2]`)},
			`{"ok":true,"exit_code":0,"duration_ms":0,"diagnostics":[],"counts":{"error":0,"warning":0,"info":0,"hint":0},"data":[1,2]}`},
		{"files present when empty", Result{OK: true, Files: []string{}},
			`{"ok":true,"exit_code":0,"duration_ms":0,"diagnostics":[],"counts":{"error":0,"warning":0,"info":0,"hint":0},"files":[]}`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.res)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if string(b) != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, b, tt.want)
		}
		var back Result
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: decode: %v", tt.name, err)
		}
		again, _ := json.Marshal(back)
		if string(again) != string(b) {
			t.Errorf("%s: round trip\n got %s\nwant %s", tt.name, again, b)
		}
	}

	res := Result{OK: false, Diagnostics: []diagnostic.Diagnostic{{Path: "a.go", Line: 1, Severity: diagnostic.Error, Message: "x"}},
		Counts: diagnostic.Counts{Error: 1}, Data: json.RawMessage(`{"mode":"pull"}`)}
	b, _ := json.Marshal(res)
	var back Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if string(back.Data) != `{"mode":"pull"}` || len(back.Diagnostics) != 1 || back.Counts.Error != 1 {
		t.Errorf("round trip = %+v data %s", back, back.Data)
	}
}

// TestResultJSONOperationKeys: an operation's "files" (a rename's file
// diffs) is not mistaken for the files a check would change, on the way
// out and back in (the daemon's wire).
func TestResultJSONOperationKeys(t *testing.T) {
	res := Result{OK: true, Data: json.RawMessage(`{"files":[{"path":"a.go","diff":"-x\n+y\n"}],"tests":"not a report"}`)}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"ok":true,"exit_code":0,"duration_ms":0,"diagnostics":[],"counts":{"error":0,"warning":0,"info":0,"hint":0},"files":[{"path":"a.go","diff":"-x\n+y\n"}],"tests":"not a report"}`
	if string(b) != want {
		t.Errorf("encoded\n got %s\nwant %s", b, want)
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Files != nil || back.Tests != nil {
		t.Errorf("files %v, tests %v taken as the result's", back.Files, back.Tests)
	}
	if again, _ := json.Marshal(back); string(again) != want {
		t.Errorf("round trip\n got %s\nwant %s", again, want)
	}
}

// BenchmarkResultWire is what a warm CLI call does with a semantic result
// of 100 references: the daemon encodes it, the CLI decodes it and encodes
// it again for its output.
func BenchmarkResultWire(b *testing.B) {
	type ref struct {
		Path      string `json:"path"`
		Line      int    `json:"line"`
		Column    int    `json:"column"`
		Text      string `json:"text"`
		Container string `json:"container"`
	}
	refs := make([]ref, 100)
	for i := range refs {
		refs[i] = ref{Path: "go/analysis/passes/printf/printf.go", Line: i + 1, Column: 7,
			Text: "var Analyzer = &analysis.Analyzer{", Container: "printf"}
	}
	data, _ := json.Marshal(map[string]any{"symbol": "Analyzer", "total": 279, "offset": 0, "next_offset": 100, "references": refs})
	res := Result{OK: true, DurationMS: 12.5, Data: data}
	for b.Loop() {
		wire, err := json.Marshal(res)
		if err != nil {
			b.Fatal(err)
		}
		var back Result
		if err := json.Unmarshal(wire, &back); err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(back); err != nil {
			b.Fatal(err)
		}
	}
}
