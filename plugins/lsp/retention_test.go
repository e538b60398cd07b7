package lsp

import (
	"fmt"
	"strings"
	"testing"
)

// TestServerStateBounded: a server that sends applyEdit, progress and
// registrations without end does not make the client keep them all: it
// keeps the latest maxServerEdits edits (none over maxServerEditBytes),
// at most maxProgress progress tokens and refuses registrations beyond
// maxRegistrations.
func TestServerStateBounded(t *testing.T) {
	c, p := newPair(t, Options{})
	ask := func(id int, method string, params any) message {
		p.send(map[string]any{"id": id, "method": method, "params": params})
		return p.read()
	}
	edit := func(uri string, text string) map[string]any {
		return map[string]any{"edit": map[string]any{"changes": map[string]any{uri: []any{
			map[string]any{"range": map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 0}}, "newText": text}}}}}
	}
	const n = 100
	for i := range n {
		m := ask(i+1, "workspace/applyEdit", edit(fmt.Sprintf("file:///f%d", i), "x"))
		if m.Error != nil || !strings.Contains(string(m.Result), `"applied":false`) {
			t.Fatalf("applyEdit %d = %s %v; want declined", i, m.Result, m.Error)
		}
	}
	m := ask(n+1, "workspace/applyEdit", edit("file:///huge", strings.Repeat("x", maxServerEditBytes)))
	if m.Error != nil || !strings.Contains(string(m.Result), `"applied":false`) {
		t.Errorf("huge applyEdit = %s %v; want declined", m.Result, m.Error)
	}
	edits := c.ServerEdits()
	if len(edits) != maxServerEdits {
		t.Fatalf("%d server edits kept, want %d", len(edits), maxServerEdits)
	}
	for i, e := range edits {
		want := DocumentURI(fmt.Sprintf("file:///f%d", n-maxServerEdits+i))
		if _, ok := e.Changes[want]; !ok {
			t.Errorf("edit %d is not the one for %s: %v", i, want, e.Changes)
		}
	}

	for i := range 3 * maxProgress {
		kind := "begin"
		if i%2 == 1 {
			kind = "report" // of a token that never began
		}
		p.send(map[string]any{"method": "$/progress", "params": map[string]any{"token": fmt.Sprint("t", i), "value": map[string]any{"kind": kind, "title": "x"}}})
	}
	var regs []any
	for i := range maxRegistrations + 10 {
		regs = append(regs, map[string]string{"id": fmt.Sprint("r", i), "method": "workspace/didChangeWatchedFiles"})
	}
	// Answered after the notifications before it have been handled.
	m = ask(n+2, "client/registerCapability", map[string]any{"registrations": regs})
	if m.Error == nil || !strings.Contains(m.Error.Message, "registrations") {
		t.Errorf("registerCapability beyond the bound = %s %v, want an error", m.Result, m.Error)
	}
	if got := len(c.Registrations()); got != maxRegistrations {
		t.Errorf("%d registrations kept, want %d", got, maxRegistrations)
	}
	if got := len(c.ActiveProgress()); got > maxProgress {
		t.Errorf("%d progress tokens kept, want at most %d", got, maxProgress)
	}
}
