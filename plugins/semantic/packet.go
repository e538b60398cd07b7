package semantic

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/langhost/langhost/plugins/lsp"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Feedback packets: diagnostics shaped for the agent that has to act on
// them. compact is one line of facts per diagnostic with the name path of
// the symbol containing it; guided adds the server's code actions for the
// diagnostic's range, ranked, each with the apply_code_action call that
// applies it.

// Bounds of a guided packet: code actions are asked for this many
// diagnostics, and this many are kept for each.
const (
	maxGuidedItems       = 20
	maxSuggestionsPerOne = 5
)

func checkPacket(mode string) error {
	if !diagnostic.ValidPacket(mode) {
		return fieldErr(failure.InvalidInput, "packet", "unknown packet %q (want raw, compact or guided)", mode)
	}
	return nil
}

// Packet shapes ds (the diagnostics of a semantic diagnostics result) as
// mode asks: nil for raw or "", else a compact or guided packet.
// Diagnostics in files outside the workspace get no symbol hint.
func (c *call) Packet(ctx context.Context, mode string, ds []diagnostic.Diagnostic) *diagnostic.Packet {
	return c.packet(ctx, mode, ds, true, nil)
}

// packet shapes ds; suggest asks the server for code actions (it must
// hold the text the diagnostics are about). pending are changes the
// diagnostics are about that are not on disk (a dry run, a rejected
// transaction): their lines are mapped back to the disk text for the
// symbol hints.
func (c *call) packet(ctx context.Context, mode string, ds []diagnostic.Diagnostic, suggest bool, pending []fileChange) *diagnostic.Packet {
	if mode == "" || mode == diagnostic.PacketRaw {
		return nil
	}
	files := map[string]*packetFile{}
	fileOf := func(rel string) *packetFile {
		f, ok := files[rel]
		if !ok {
			f = c.packetFile(ctx, rel)
			files[rel] = f
		}
		return f
	}
	p := diagnostic.Compact(ds, func(d diagnostic.Diagnostic) string {
		f := fileOf(d.Path)
		if f == nil || d.Line == 0 {
			return ""
		}
		line, col := d.Line, max(d.Column, 1)
		if i := slices.IndexFunc(pending, func(ch fileChange) bool { return ch.rel == d.Path }); i >= 0 {
			var moved bool
			if line, moved = oldLine(string(pending[i].old), string(pending[i].new), line); moved {
				col = 1
			}
		}
		pos, err := f.doc.mapper.Position(line, col)
		if err != nil {
			return ""
		}
		var segs []string
		for _, s := range symbolPath(f.syms, pos) {
			own, _, _ := symbolSegments(s.Name)
			segs = append(segs, own...)
		}
		return strings.Join(segs, "/")
	})
	if mode != diagnostic.PacketGuided {
		return &p
	}
	p.Mode = diagnostic.PacketGuided
	if !suggest || !c.s.supports("codeActionProvider", "textDocument/codeAction") {
		return &p
	}
	// Compact sorts; walk the sorted diagnostics alongside its items.
	sorted := diagnostic.Normalize(ds)
	for i := range p.Items {
		if i == maxGuidedItems || i >= len(sorted) {
			break
		}
		p.Items[i].Suggestions = c.suggestions(ctx, fileOf(sorted[i].Path), sorted[i])
	}
	return &p
}

// packetFile is a file of a packet's diagnostics, outlined once.
type packetFile struct {
	doc  *document
	syms []lsp.DocumentSymbol
}

func (c *call) packetFile(ctx context.Context, rel string) *packetFile {
	if rel == "" || filepath.IsAbs(rel) {
		return nil
	}
	doc, err := c.docAt(ctx, lsp.URIFromPath(filepath.Join(c.e.root, filepath.FromSlash(rel))))
	if err != nil {
		return nil
	}
	syms, err := c.documentSymbols(ctx, doc)
	if err != nil {
		return nil
	}
	return &packetFile{doc: doc, syms: syms}
}

// suggestions are the server's repairs for d's range, as apply_code_action
// calls: quick fixes (preferred ones first), actions that name d, then
// organize imports and fix-all; refactorings are left out.
func (c *call) suggestions(ctx context.Context, f *packetFile, d diagnostic.Diagnostic) []diagnostic.Suggestion {
	if f == nil || d.Line == 0 {
		return nil
	}
	doc, err := c.s.document(ctx, f.doc.path)
	if err != nil {
		return nil
	}
	start, err := doc.mapper.Position(d.Line, max(d.Column, 1))
	if err != nil {
		return nil
	}
	end := start
	if d.EndLine > 0 {
		if e, err := doc.mapper.Position(d.EndLine, max(d.EndColumn, 1)); err == nil {
			end = e
		}
	}
	actions, err := c.codeActionsAt(ctx, doc, lsp.Range{Start: start, End: end}, nil)
	if err != nil {
		return nil
	}
	// Only actions apply_code_action can apply: enabled, with an edit
	// (or one to resolve), not a command to run.
	resolve := c.s.supportsResolve()
	actions = slices.DeleteFunc(actions, func(a lsp.CodeAction) bool {
		return a.Disabled != nil || a.Edit == nil && (len(a.Data) == 0 || !resolve)
	})
	rank := func(a lsp.CodeAction) int {
		quickfix := a.Kind == "quickfix" || strings.HasPrefix(a.Kind, "quickfix.")
		names := slices.ContainsFunc(a.Diagnostics, func(ad lsp.Diagnostic) bool { return ad.Message == d.Message })
		switch {
		case quickfix && a.IsPreferred:
			return 0
		case quickfix && names:
			return 1
		case quickfix:
			return 2
		case names:
			return 3
		case strings.HasPrefix(a.Kind, "source.organizeImports") || strings.HasPrefix(a.Kind, "source.fixAll"):
			return 4
		}
		return 5 // a refactoring, not a repair
	}
	actions = slices.DeleteFunc(actions, func(a lsp.CodeAction) bool { return rank(a) == 5 })
	slices.SortStableFunc(actions, func(a, b lsp.CodeAction) int { return rank(a) - rank(b) })
	var out []diagnostic.Suggestion
	for _, a := range actions {
		if len(out) == maxSuggestionsPerOne {
			break
		}
		input := map[string]any{"file": d.Path, "line": d.Line, "title": a.Title}
		if d.EndLine > d.Line {
			input["end_line"] = d.EndLine
		}
		out = append(out, diagnostic.Suggestion{Title: a.Title, Kind: a.Kind, Tool: c.e.lang + ".apply_code_action", Input: input})
	}
	return out
}

// deltaPacket shapes the diagnostics a transaction adds. Suggestions need
// the server to hold the new text, so only an applied transaction gets
// them; a dry run or a rejected one gets the compact facts.
func (c *call) deltaPacket(ctx context.Context, mode string, res *TxnResult, changes []fileChange) (*diagnostic.Packet, error) {
	if res == nil {
		return nil, nil
	}
	if res.Applied {
		changes = nil
	}
	return c.packet(ctx, mode, res.Delta.New, res.Applied, changes), nil
}

// oldLine maps a 1-based line of new back to old, which differ in one
// region: lines before it are the same, lines after it shifted, lines in
// it map to its first line (moved is then true).
func oldLine(old, new string, line int) (int, bool) {
	o, n := strings.Split(old, "\n"), strings.Split(new, "\n")
	pre := 0
	for pre < len(o) && pre < len(n) && o[pre] == n[pre] {
		pre++
	}
	suf := 0
	for suf < len(o)-pre && suf < len(n)-pre && o[len(o)-1-suf] == n[len(n)-1-suf] {
		suf++
	}
	switch {
	case line <= pre:
		return line, false
	case line > len(n)-suf:
		return line - len(n) + len(o), false
	}
	return min(pre+1, len(o)), true
}

// withPacket adds the packet of a rejected transaction's new diagnostics
// to its error, so the agent sees them shaped as it asked.
func (c *call) withPacket(ctx context.Context, err error, mode string, changes []fileChange) error {
	var fe *failure.Error
	if err == nil || !errors.As(err, &fe) || fe.Code != failure.DiagnosticRegression {
		return err
	}
	if res, ok := fe.Details["transaction"].(*TxnResult); ok {
		if p := c.packet(ctx, mode, res.Delta.New, false, changes); p != nil {
			fe.Details["packet"] = p
		}
	}
	return err
}

// symbolID is a declaration's stable id: a hash of the language, its
// file, name path, kind and overload index. Edits elsewhere do not change
// it; renaming or moving the declaration does.
func (c *call) symbolID(ref *symbolRef) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%d", c.e.lang, c.e.relPath(ref.doc.uri), ref.path, ref.sym.Kind, ref.overload)
	return "sym_" + hex.EncodeToString(h.Sum(nil))[:20]
}
