package diagnostic

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

func TestRelPath(t *testing.T) {
	root := filepath.FromSlash("/ws/proj")
	tests := []struct{ in, want string }{
		{"", ""},
		{filepath.FromSlash("/ws/proj/a/b.go"), "a/b.go"},
		{filepath.FromSlash("/ws/proj"), "."},
		{filepath.FromSlash("/ws/projx/b.go"), "/ws/projx/b.go"},
		{filepath.FromSlash("/elsewhere/c.go"), "/elsewhere/c.go"},
		{filepath.FromSlash("a/./b.go"), "a/b.go"},
	}
	for _, tt := range tests {
		if got := RelPath(root, tt.in); got != tt.want {
			t.Errorf("RelPath(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNormalizeSeverity(t *testing.T) {
	for in, want := range map[string]string{"E": Error, "fatal error": Error, "warn": Warning, "information": Info, "note": Info, "4": Hint, "bogus": ""} {
		if got := NormalizeSeverity(in); got != want {
			t.Errorf("NormalizeSeverity(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNormalizeDedupesAndNeverNil(t *testing.T) {
	if got := Normalize(nil); got == nil || len(got) != 0 {
		t.Fatalf("Normalize(nil) = %#v", got)
	}
	d := Diagnostic{Path: "a.go", Line: 3, Severity: Error, Message: "x"}
	got := Normalize([]Diagnostic{d, {Path: "a.go", Line: 1, Severity: Warning, Message: "y"}, d})
	if len(got) != 2 || got[0].Line != 1 {
		t.Fatalf("Normalize = %+v", got)
	}
}

func TestDiff(t *testing.T) {
	unused := Diagnostic{Path: "a.go", Line: 10, Severity: Warning, Code: "unusedvar", Message: "x declared and not used"}
	undefined := Diagnostic{Path: "a.go", Line: 4, Severity: Error, Message: "undefined: y"}
	moved := unused
	moved.Line = 12 // two lines were inserted above it
	added := Diagnostic{Path: "b.go", Line: 1, Severity: Error, Message: "syntax error"}

	d := Diff([]Diagnostic{unused, undefined}, []Diagnostic{moved, added})
	if len(d.New) != 1 || d.New[0] != added {
		t.Errorf("new = %+v", d.New)
	}
	if len(d.Fixed) != 1 || d.Fixed[0] != undefined {
		t.Errorf("fixed = %+v", d.Fixed)
	}
	if len(d.Unchanged) != 1 || d.Unchanged[0] != moved {
		t.Errorf("unchanged = %+v", d.Unchanged)
	}
	if !d.Worse(Error) || !d.Worse(Warning) {
		t.Error("a new error is worse")
	}
	if Diff([]Diagnostic{undefined}, nil).Worse(Warning) {
		t.Error("fixing is not worse")
	}
	b, _ := json.Marshal(Diff(nil, nil))
	if string(b) != `{"new":[],"fixed":[],"unchanged":[]}` {
		t.Errorf("empty delta = %s", b)
	}
}

func TestCountJSON(t *testing.T) {
	b, _ := json.Marshal(Count([]Diagnostic{{Severity: Error}, {Severity: "odd"}}))
	if string(b) != `{"error":1,"warning":0,"info":1,"hint":0}` {
		t.Errorf("counts = %s", b)
	}
}
