package semantic

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/langhost/langhost/plugins/lsp"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Postconditions of structured edits: each edit promises an effect (the
// body is the new body, the inserted text sits next to its anchor, the
// symbol is gone, ...). The promise is checked on the server's document
// symbols of the overlay, before anything is written: a text edit that
// compiles may still not be the edit that was asked for (a body that
// closes its function early and declares another after it).

// symbolCheck is a structured edit's postcondition on its file's
// declarations after the edit (after) and its new text; it returns why
// the edit broke its promise, or "".
type symbolCheck func(after []fileSymbol, text string) string

// checkSymbols runs check on the declarations the server sees in the
// overlay of ch.
func (c *call) checkSymbols(ctx context.Context, overlays map[string]*document, ch fileChange, check symbolCheck) (string, error) {
	doc := overlays[ch.path]
	if doc == nil {
		return fmt.Sprintf("%s does not check %s, so the edit cannot be verified", c.s.name, ch.rel), nil
	}
	syms, err := c.documentSymbols(ctx, doc)
	if err != nil {
		return "", failure.Wrap(failure.CodeOf(err), err, "checking the edit of %s", ch.rel)
	}
	return check(flatten(syms), string(ch.new)), nil
}

// declsAt returns the declarations of all at the name path segs with
// kind, in file order.
func declsAt(all []fileSymbol, segs []string, kind lsp.SymbolKind) []fileSymbol {
	var out []fileSymbol
	for _, fs := range all {
		if fs.sym().Kind == kind && slices.Equal(fs.segs, segs) {
			out = append(out, fs)
		}
	}
	return out
}

// pathSegs splits a canonical name path ("Shape/Area").
func pathSegs(path string) []string { return strings.Split(path, "/") }

// declAfter finds, in the new text, the declaration at ref's name path and
// kind whose name ends at byte offset selEnd: where the edit must have
// left it. Matching by position keeps an overload the edit adds from
// being taken for it.
func (c *call) declAfter(ref *symbolRef, after []fileSymbol, text string, selEnd int) (*declText, bool) {
	for _, fs := range declsAt(after, pathSegs(ref.path), ref.sym.Kind) {
		d, err := c.declText(&symbolRef{doc: ref.doc, sym: fs.sym(), path: ref.path}, text)
		if err == nil && d.selEnd == selEnd {
			return d, true
		}
	}
	return nil, false
}

// bodyOf returns the text of a declaration's body: between its braces
// (or between => and ;), or after the colon of a Python header.
func (d *declText) bodyOf() (string, bool) {
	if d.python {
		colon, ok := d.pythonHeader()
		if !ok {
			return "", false
		}
		return d.text[colon+1 : max(colon+1, d.lastLineEnd())], true
	}
	open, close, expr, ok := d.braces()
	if !ok {
		return "", false
	}
	if expr {
		return d.text[open+2 : close], true
	}
	return d.text[open+1 : close], true
}

// lineOf is the 1-based line of byte offset off in text.
func lineOf(text string, off int) int { return strings.Count(text[:off], "\n") + 1 }

// bodyCheck: the declaration still resolves where it was and its body is
// body (compared without the blank space around it).
func (c *call) bodyCheck(ref *symbolRef, selEnd int, body string) symbolCheck {
	return func(after []fileSymbol, text string) string {
		d, ok := c.declAfter(ref, after, text, selEnd)
		if !ok {
			return fmt.Sprintf("%s no longer resolves at its name path", ref.selector())
		}
		got, ok := d.bodyOf()
		if !ok {
			return fmt.Sprintf("%s has no body after the edit", ref.selector())
		}
		want := body
		if d.python {
			// Comment lines ending the body lie after the def's range.
			got, want = dropTrailingComments(got), dropTrailingComments(want)
		}
		if strings.TrimSpace(got) != strings.TrimSpace(want) {
			return fmt.Sprintf("the body of %s is not the new body: the declaration now ends at line %d and the rest of the text lies outside it", ref.selector(), lineOf(text, d.lastLineEnd()))
		}
		return ""
	}
}

// dropTrailingComments drops the blank and comment lines ending a
// Python block.
func dropTrailingComments(s string) string {
	lines := strings.Split(s, "\n")
	for len(lines) > 0 {
		t := strings.TrimSpace(lines[len(lines)-1])
		if t != "" && !strings.HasPrefix(t, "#") {
			break
		}
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

// adjacentCheck: the anchor still resolves at selEnd and the inserted
// text, which spans [from, to) of the new text, is next to it: just before
// its doc comment and attributes (before), or just after its last line.
func (c *call) adjacentCheck(ref *symbolRef, selEnd, from, to int, before bool) symbolCheck {
	return func(after []fileSymbol, text string) string {
		d, ok := c.declAfter(ref, after, text, selEnd)
		if !ok {
			return fmt.Sprintf("the anchor %s no longer resolves at its name path after the insertion", ref.selector())
		}
		if before && (d.start < to || d.leadingStart() != to) || !before && (d.end > from || d.lastLineEnd() != from) {
			return fmt.Sprintf("the inserted text is not next to %s: the declaration now spans lines %d-%d", ref.selector(), lineOf(text, d.start), lineOf(text, d.lastLineEnd()))
		}
		return ""
	}
}

// countPaths counts the declarations of all by name path and kind.
func countPaths(all []fileSymbol) map[string]int {
	n := map[string]int{}
	for _, fs := range all {
		n[fmt.Sprintf("%s %s", strings.Join(fs.segs, "/"), fs.sym().Kind)]++
	}
	return n
}

// added lists the name paths declared in after more often than in before.
func added(before, after []fileSymbol) []string {
	was := countPaths(before)
	var out []string
	for _, fs := range after {
		key := fmt.Sprintf("%s %s", strings.Join(fs.segs, "/"), fs.sym().Kind)
		if was[key] > 0 {
			was[key]--
			continue
		}
		out = append(out, strings.Join(fs.segs, "/"))
	}
	return out
}

// memberCheck: the type still resolves where it was, and every symbol the
// member text declares is a member of it.
func (c *call) memberCheck(ref *symbolRef, selEnd int) symbolCheck {
	return func(after []fileSymbol, text string) string {
		if _, ok := c.declAfter(ref, after, text, selEnd); !ok {
			return fmt.Sprintf("%s no longer resolves at its name path after adding the member", ref.selector())
		}
		prefix := ref.path + "/"
		for _, p := range added(ref.all, after) {
			if !strings.HasPrefix(p, prefix) {
				return fmt.Sprintf("the member text declares %s, which is not a member of %s", p, ref.selector())
			}
		}
		return ""
	}
}

// goneCheck: one declaration fewer at ref's name path.
func goneCheck(ref *symbolRef) symbolCheck {
	return func(after []fileSymbol, _ string) string {
		segs := pathSegs(ref.path)
		if len(declsAt(after, segs, ref.sym.Kind)) >= len(declsAt(ref.all, segs, ref.sym.Kind)) {
			return fmt.Sprintf("%s still resolves after its deletion", ref.selector())
		}
		return ""
	}
}

// renamedCheck: a declaration more at the new name, one fewer at the old.
func renamedCheck(ref *symbolRef, newName string) symbolCheck {
	return func(after []fileSymbol, _ string) string {
		old := pathSegs(ref.path)
		renamed := append(slices.Clone(old[:len(old)-1]), newName)
		if len(declsAt(after, renamed, ref.sym.Kind)) <= len(declsAt(ref.all, renamed, ref.sym.Kind)) {
			return fmt.Sprintf("%s does not resolve after renaming %s", strings.Join(renamed, "/"), ref.selector())
		}
		if len(declsAt(after, old, ref.sym.Kind)) >= len(declsAt(ref.all, old, ref.sym.Kind)) {
			return fmt.Sprintf("%s still resolves after its renaming to %s", ref.selector(), newName)
		}
		return ""
	}
}

// importsCheck: the imports added are in text and those removed are not.
func importsCheck(lang, text string, add, remove []string) string {
	syn, ok := importSyntaxes[lang]
	if !ok {
		return ""
	}
	have := map[string]bool{}
	for _, l := range strings.SplitAfter(text, "\n") {
		t := strings.TrimSpace(l)
		if lang == "go" && (strings.HasPrefix(t, "func ") || strings.HasPrefix(t, "type ") || strings.HasPrefix(t, "var ") || strings.HasPrefix(t, "const ")) {
			break // Go imports come before every declaration
		}
		if strings.HasPrefix(t, "//") {
			continue // a Go comment may quote a path
		}
		for _, s := range []string{l, strings.TrimPrefix(l, "import ")} {
			if syn.is(s) {
				_, key := syn.line(strings.TrimSpace(s))
				have[key] = true
			}
		}
	}
	for _, a := range add {
		if _, key := syn.line(a); !have[key] {
			return fmt.Sprintf("the new text does not import %q", a)
		}
	}
	for _, r := range remove {
		if _, key := syn.line(r); have[key] {
			return fmt.Sprintf("the new text still imports %q", r)
		}
	}
	return ""
}
