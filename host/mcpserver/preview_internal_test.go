package mcpserver

import (
	"fmt"
	"testing"
	"time"
)

func TestPreviewStoreBounds(t *testing.T) {
	now := time.Unix(1000, 0)
	p := newPreviews(time.Minute, 3)
	p.now = func() time.Time { return now }
	var ids []string
	for i := range 4 {
		id, err := p.put(&preview{tool: fmt.Sprint("t", i)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if _, ok := p.get(ids[0]); ok {
		t.Error("the oldest preview survived a full store")
	}
	for _, id := range ids[1:] {
		if _, ok := p.get(id); !ok {
			t.Errorf("preview %s lost", id)
		}
	}
	now = now.Add(time.Minute)
	for _, id := range ids {
		if _, ok := p.get(id); ok {
			t.Errorf("preview %s outlived its TTL", id)
		}
	}
	if len(p.byID) != 0 || len(p.order) != 0 {
		t.Errorf("expired entries kept: %d, %d", len(p.byID), len(p.order))
	}
}

func TestPreviewIDsAreRandom(t *testing.T) {
	p := newPreviews(0, 0)
	seen := map[string]bool{}
	for range 100 {
		id, err := p.put(&preview{})
		if err != nil {
			t.Fatal(err)
		}
		if seen[id] || len(id) != 32 {
			t.Fatalf("id %q repeated or malformed", id)
		}
		seen[id] = true
	}
	if len(p.byID) != DefaultMaxPreviews {
		t.Errorf("store holds %d, want the default bound %d", len(p.byID), DefaultMaxPreviews)
	}
}

func TestFirstSentence(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Rename a symbol everywhere. Returns a unified diff preview.", "Rename a symbol everywhere."},
		{"Report suspicious constructs (go vet), e.g. Printf format mismatches", "Report suspicious constructs (go vet), e.g. Printf format mismatches"},
		{"Run go test.\\nMore text.", "Run go test.\\nMore text."},
		{"Build it.\n  Then more.", "Build it."},
		{"Version 1.2. Done", "Version 1.2."},
		{"ends with a dot.", "ends with a dot."},
		{"", ""},
	}
	for _, tt := range tests {
		if got := firstSentence(tt.in); got != tt.want {
			t.Errorf("firstSentence(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
