package semantic

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/langhost/langhost/plugins/lsp"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Structured edits: each addresses a declaration by name path (never by
// line alone), computes the new text from the server's document symbols
// (range and selection range) and the file's text, and goes through a
// transaction (txn.go): checked by the server in memory, rejected with
// diagnostic_regression when it adds errors, written atomically and
// recorded otherwise.

// maxEditText bounds the text an agent may give one structured edit.
const maxEditText = 1 << 20

// symbolAddress names the declaration an edit is anchored to.
type symbolAddress struct {
	Symbol string `json:"symbol" jsonschema:"name path of the declaration: Shape/Area, pkg.Type.Method or Type.Method; an overload selector picks one of several: Area(int) or Area#2"`
	File   string `json:"file,omitempty" jsonschema:"file declaring the symbol, relative to the workspace root (default: search the workspace)"`
	Kind   string `json:"kind,omitempty" jsonschema:"symbol kind, to disambiguate (class, method, function, ...)"`
}

// txnOptions are the inputs every structured edit passes to its
// transaction.
type txnOptions struct {
	Policy string `json:"policy,omitempty" jsonschema:"which new diagnostics reject the edit: new_errors (default), new_warnings or never"`
	DryRun bool   `json:"dry_run,omitempty" jsonschema:"return the diff and the diagnostics delta without writing"`
	Packet string `json:"packet,omitempty" jsonschema:"shape of the new diagnostics in the result: raw (default: the delta only), compact or guided"`
}

func (o txnOptions) validate() error {
	if _, err := checkPolicy(o.Policy); err != nil {
		return err
	}
	return checkPacket(o.Packet)
}

func checkText(key, s string, required bool) error {
	switch {
	case required && strings.TrimSpace(s) == "":
		return fieldErr(failure.InvalidInput, key, "is required")
	case len(s) > maxEditText:
		return fieldErr(failure.InvalidInput, key, "is %d bytes; a structured edit takes at most %d (write whole files with edit_file)", len(s), maxEditText)
	case strings.ContainsRune(s, 0):
		return fieldErr(failure.InvalidInput, key, "contains a NUL byte")
	}
	return nil
}

// symbolEditOutput is the result of a structured edit.
type symbolEditOutput struct {
	Symbol   string `json:"symbol" jsonschema:"selector of the declaration the edit was anchored to"`
	SymbolID string `json:"symbol_id,omitempty"`
	TxnResult
	Packet *diagnostic.Packet `json:"packet,omitempty" jsonschema:"the new diagnostics shaped as asked by packet"`
}

// symbolEdit resolves addr, then runs a transaction whose change is
// computed by edit from the declaration and the file's current text,
// under the file's lock (so concurrent edits each see the one before).
// edit also returns the edit's postcondition, checked on the server's
// symbols of the new text before anything is written.
func (c *call) symbolEdit(ctx context.Context, op string, addr symbolAddress, opts txnOptions, edit func(ref *symbolRef, text string) (string, symbolCheck, error)) (*symbolEditOutput, error) {
	ref, err := c.resolveNamePath(ctx, "symbol", addr.File, addr.Symbol, addr.Kind, failure.AnchorNotResolved)
	if err != nil {
		return nil, err
	}
	target, rel := ref.doc.path, c.e.relPath(ref.doc.uri)
	if err := c.checkWritable(rel, false); err != nil {
		return nil, err
	}
	out := &symbolEditOutput{Symbol: ref.selector(), SymbolID: c.symbolID(ref)}
	var proposed []fileChange
	var check symbolCheck
	res, err := c.transact(ctx, &txn{
		Operation: op, Policy: opts.Policy, DryRun: opts.DryRun,
		Trace: []string{fmt.Sprintf("%s %s in %s", op, ref.selector(), rel)},
		Lock:  []string{target},
		Postcondition: func(ctx context.Context, overlays map[string]*document) (string, error) {
			if check == nil {
				return "", nil
			}
			return c.checkSymbols(ctx, overlays, proposed[0], check)
		},
		Propose: func(ctx context.Context) ([]fileChange, error) {
			// Again under the lock, in that file: an edit before this one
			// may have moved or removed the declaration.
			again, err := c.resolveNamePath(ctx, "symbol", rel, ref.selector(), addr.Kind, failure.AnchorNotResolved)
			if err != nil {
				return nil, err
			}
			old := again.doc.content()
			var text string
			text, check, err = edit(again, string(old))
			if err != nil {
				return nil, err
			}
			proposed = []fileChange{{path: again.doc.path, rel: rel, old: old, new: []byte(text), editCount: 1}}
			return proposed, nil
		},
	})
	if err := c.withPacket(ctx, err, opts.Packet, proposed); err != nil {
		return nil, err
	}
	out.TxnResult = *res
	out.Packet, err = c.deltaPacket(ctx, opts.Packet, res, proposed)
	return out, err
}

// checkWritable refuses, before any work, a file the workspace does not
// let an edit write: outside it, git metadata or .langhost, at any depth.
// txnlog.Write checks again when writing.
func (c *call) checkWritable(rel string, create bool) error {
	resolve := c.e.ws.ResolveWrite
	if create {
		resolve = c.e.ws.ResolveCreate
	}
	_, err := resolve("file", filepath.FromSlash(rel))
	return err
}

// ---- text of a declaration

// declText is a declaration located in its file's text (byte offsets).
type declText struct {
	text       string
	start, end int // the server's range
	selEnd     int // end of the name
	python     bool
}

func (c *call) declText(ref *symbolRef, text string) (*declText, error) {
	m := lsp.NewMapper([]byte(text))
	start, err1 := m.Offset(ref.sym.Range.Start)
	end, err2 := m.Offset(ref.sym.Range.End)
	selEnd, err3 := m.Offset(ref.sym.SelectionRange.End)
	if err := cmpErr(err1, err2, err3); err != nil || start > end || selEnd < start || selEnd > end {
		return nil, failure.New(failure.Internal, "%s gave %s a range outside its file", c.s.name, ref.selector())
	}
	return &declText{text: text, start: start, end: end, selEnd: selEnd, python: c.s.languageID(ref.doc.path) == "python"}, nil
}

func cmpErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func lineStart(text string, off int) int { return strings.LastIndexByte(text[:off], '\n') + 1 }

func lineEnd(text string, off int) int {
	if i := strings.IndexByte(text[off:], '\n'); i >= 0 {
		return off + i
	}
	return len(text)
}

func indentOf(line string) string { return line[:len(line)-len(strings.TrimLeft(line, " \t"))] }

// lastLineEnd is the end of the declaration's last line; a range ending
// at the start of a line ends on the line before.
func (d *declText) lastLineEnd() int {
	if d.end > d.start && d.text[d.end-1] == '\n' {
		return d.end - 1
	}
	return lineEnd(d.text, d.end)
}

// indent is the indentation of the declaration's first line.
func (d *declText) indent() string {
	ls := d.leadingStart()
	return indentOf(d.text[ls:lineEnd(d.text, ls)])
}

// leadingStart is the start of the declaration's first line, moved up
// over the doc comment, attributes and decorators directly above it.
func (d *declText) leadingStart() int {
	ls := lineStart(d.text, d.start)
	prefixes := []string{"//", "/*", "*", "[", "@"}
	if d.python {
		prefixes = []string{"#", "@"}
	}
	for ls > 0 {
		prev := lineStart(d.text, ls-1)
		t := strings.TrimSpace(d.text[prev : ls-1])
		if t == "" || !slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(t, p) }) {
			break
		}
		ls = prev
	}
	return ls
}

// indentUnit is one level of indentation in the file.
func indentUnit(path, text string) string {
	if filepath.Ext(path) == ".go" {
		return "\t"
	}
	size, spaces := detectIndent([]byte(text))
	if !spaces {
		return "\t"
	}
	return strings.Repeat(" ", size)
}

// reindent strips text's common indentation and blank edge lines, then
// indents every non-blank line with indent; the nesting within text is
// converted to the file's unit (an agent's 4 spaces become a Go tab).
func reindent(text, indent, unit string) string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.Split(text, "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	common, set := "", false
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ind := indentOf(l)
		if !set {
			common, set = ind, true
		}
		for !strings.HasPrefix(ind, common) {
			common = common[:len(common)-1]
		}
	}
	for i, l := range lines {
		lines[i] = strings.TrimRight(strings.TrimPrefix(l, common), " \t")
	}
	size, _ := detectIndent([]byte(strings.Join(lines, "\n")))
	for i, l := range lines {
		if l == "" {
			continue
		}
		lead := indentOf(l)
		levels := strings.Count(lead, "\t")
		spaces := len(lead) - levels
		levels += spaces / size
		lines[i] = indent + strings.Repeat(unit, levels) + strings.Repeat(" ", spaces%size) + l[len(lead):]
	}
	return strings.Join(lines, "\n")
}

// scanner walks source text skipping strings and comments, tracking the
// nesting of (), [] and {}.
type scanner struct {
	text   string
	python bool
}

// each calls f for every code byte from i to end with the paren/bracket
// depth before it; f returns false to stop. It returns the stop offset or -1.
func (s scanner) each(i, end int, f func(i, depth int) bool) int {
	depth := 0
	for i < end {
		ch := s.text[i]
		switch {
		case ch == '"' || ch == '\'' || ch == '`':
			if s.python && strings.HasPrefix(s.text[i:], strings.Repeat(string(ch), 3)) {
				j := strings.Index(s.text[i+3:end], strings.Repeat(string(ch), 3))
				if j < 0 {
					return -1
				}
				i += j + 6
				continue
			}
			j := i + 1
			for j < end && s.text[j] != ch && (ch == '`' || s.text[j] != '\n') {
				if s.text[j] == '\\' && ch != '`' {
					j++
				}
				j++
			}
			i = j + 1
			continue
		case !s.python && strings.HasPrefix(s.text[i:], "//"), s.python && ch == '#':
			i = lineEnd(s.text, i)
			continue
		case !s.python && strings.HasPrefix(s.text[i:], "/*"):
			j := strings.Index(s.text[i+2:end], "*/")
			if j < 0 {
				return -1
			}
			i += j + 4
			continue
		}
		if !f(i, depth) {
			return i
		}
		switch ch {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		}
		i++
	}
	return -1
}

// braces finds the declaration's body in a brace language: the offsets
// of its { and }, or, for an expression body (C# "=> expr;"), of the =>
// and the ;.
func (d *declText) braces() (open, close int, expr bool, ok bool) {
	sc := scanner{text: d.text}
	open = sc.each(d.selEnd, d.end, func(i, depth int) bool {
		return !(depth == 0 && (d.text[i] == '{' || strings.HasPrefix(d.text[i:], "=>")))
	})
	if open < 0 {
		return 0, 0, false, false
	}
	if d.text[open] == '=' {
		semi := sc.each(open+2, min(len(d.text), d.end+1), func(i, depth int) bool { return !(depth == 0 && d.text[i] == ';') })
		return open, semi, true, semi > 0
	}
	level := 0
	close = sc.each(open, d.end, func(i, _ int) bool {
		switch d.text[i] {
		case '{':
			level++
		case '}':
			if level--; level == 0 {
				return false
			}
		}
		return true
	})
	return open, close, false, close > 0
}

// pythonHeader finds the colon ending a Python def or class header.
func (d *declText) pythonHeader() (colon int, ok bool) {
	colon = scanner{text: d.text, python: true}.each(d.selEnd, d.end, func(i, depth int) bool {
		return !(depth == 0 && d.text[i] == ':')
	})
	return colon, colon > 0
}

// replaceBody returns text with the declaration's body replaced by body:
// the text between the braces, or the indented block after a Python
// header; and the check that the declaration's body is body afterwards.
func (c *call) replaceBody(ref *symbolRef, text, body string) (string, symbolCheck, error) {
	d, err := c.declText(ref, text)
	if err != nil {
		return "", nil, err
	}
	unit := indentUnit(ref.doc.path, text)
	ind := d.indent()
	if d.python {
		colon, ok := d.pythonHeader()
		if !ok {
			return "", nil, fieldErr(failure.Precondition, "symbol", "%s has no body (no ':' after its signature)", ref.selector())
		}
		if strings.TrimSpace(body) == "" {
			body = "pass"
		}
		inner := reindent(body, ind+unit, unit)
		return text[:colon+1] + "\n" + inner + text[d.lastLineEnd():], c.bodyCheck(ref, d.selEnd, inner), nil
	}
	open, close, expr, ok := d.braces()
	if !ok {
		return "", nil, fieldErr(failure.Precondition, "symbol", "%s has no body to replace (an interface method, a field or an abstract declaration?)", ref.selector())
	}
	inner := ""
	if strings.TrimSpace(body) != "" {
		inner = reindent(body, ind+unit, unit)
	}
	block := "{\n" + inner + "\n" + ind + "}"
	if inner == "" {
		block = "{\n" + ind + "}"
	}
	check := c.bodyCheck(ref, d.selEnd, inner)
	if expr {
		// "=> expr;" becomes a block body.
		return strings.TrimRight(text[:open], " \t") + "\n" + ind + block + text[close+1:], check, nil
	}
	return text[:open] + block + text[close+1:], check, nil
}

// ---- replace_symbol_body

type replaceBodyInput struct {
	symbolAddress
	Body string `json:"body" jsonschema:"the new body: the statements between the braces (Go, C#, Java, TypeScript) or the indented block after the signature (Python), without the braces; it is re-indented to fit"`
	txnOptions
}

func (in *replaceBodyInput) validate() error {
	if err := checkText("body", in.Body, false); err != nil {
		return err
	}
	return in.txnOptions.validate()
}

func replaceSymbolBody(ctx context.Context, c *call, in *replaceBodyInput) (*symbolEditOutput, error) {
	return c.symbolEdit(ctx, "replace_symbol_body", in.symbolAddress, in.txnOptions, func(ref *symbolRef, text string) (string, symbolCheck, error) {
		return c.replaceBody(ref, text, in.Body)
	})
}

// ---- insert_before_symbol, insert_after_symbol

type insertInput struct {
	symbolAddress
	Text string `json:"text" jsonschema:"the declarations or statements to insert, at the symbol's indentation and separated from it by a blank line"`
	txnOptions
}

func (in *insertInput) validate() error {
	if err := checkText("text", in.Text, true); err != nil {
		return err
	}
	return in.txnOptions.validate()
}

func insertBeforeSymbol(ctx context.Context, c *call, in *insertInput) (*symbolEditOutput, error) {
	return c.symbolEdit(ctx, "insert_before_symbol", in.symbolAddress, in.txnOptions, func(ref *symbolRef, text string) (string, symbolCheck, error) {
		d, err := c.declText(ref, text)
		if err != nil {
			return "", nil, err
		}
		at := d.leadingStart()
		ins := reindent(in.Text, d.indent(), indentUnit(ref.doc.path, text)) + "\n\n"
		return text[:at] + ins + text[at:], c.adjacentCheck(ref, d.selEnd+len(ins), at, at+len(ins), true), nil
	})
}

func insertAfterSymbol(ctx context.Context, c *call, in *insertInput) (*symbolEditOutput, error) {
	return c.symbolEdit(ctx, "insert_after_symbol", in.symbolAddress, in.txnOptions, func(ref *symbolRef, text string) (string, symbolCheck, error) {
		d, err := c.declText(ref, text)
		if err != nil {
			return "", nil, err
		}
		at := d.lastLineEnd()
		ins := "\n\n" + reindent(in.Text, d.indent(), indentUnit(ref.doc.path, text))
		return text[:at] + ins + text[at:], c.adjacentCheck(ref, d.selEnd, at, at+len(ins), false), nil
	})
}

// ---- delete_symbol

type deleteInput struct {
	symbolAddress
	txnOptions
}

func deleteSymbol(ctx context.Context, c *call, in *deleteInput) (*symbolEditOutput, error) {
	return c.symbolEdit(ctx, "delete_symbol", in.symbolAddress, in.txnOptions, func(ref *symbolRef, text string) (string, symbolCheck, error) {
		d, err := c.declText(ref, text)
		if err != nil {
			return "", nil, err
		}
		from, to := d.leadingStart(), d.lastLineEnd()
		after := "" // the rest of the last line; none when the range ends on a newline
		if to > d.end {
			after = strings.TrimSpace(text[d.end:to])
		}
		if strings.TrimSpace(text[lineStart(text, d.start):d.start]) != "" || after != "" && !strings.HasPrefix(after, "//") {
			return "", nil, fieldErr(failure.Precondition, "symbol", "%s shares its lines with other code; delete it with edit_file", ref.selector())
		}
		if to < len(text) {
			to++ // the newline
		}
		// Keep one blank line between what was around it.
		if next := lineEnd(text, to); to < len(text) && strings.TrimSpace(text[to:next]) == "" {
			to = min(next+1, len(text))
		} else if from > 0 {
			if prev := lineStart(text, from-1); strings.TrimSpace(text[prev:from-1]) == "" {
				from = prev
			}
		}
		return text[:from] + text[to:], goneCheck(ref), nil
	})
}

// ---- add_member

type addMemberInput struct {
	symbolAddress
	Member     string `json:"member" jsonschema:"the member's declaration (a field, property, method, ...)"`
	MemberKind string `json:"member_kind,omitempty" jsonschema:"field, property, constructor or method: where the member goes, after the last member of that kind (default: guessed from the text)"`
	txnOptions
}

var memberKinds = []string{"field", "property", "constructor", "method"}

func (in *addMemberInput) validate() error {
	if err := checkText("member", in.Member, true); err != nil {
		return err
	}
	if in.MemberKind != "" && !slices.Contains(memberKinds, in.MemberKind) {
		return fieldErr(failure.InvalidInput, "member_kind", "unknown member kind %q (want %s)", in.MemberKind, strings.Join(memberKinds, ", "))
	}
	return in.txnOptions.validate()
}

// memberGroup is the placement group of a declared member.
func memberGroup(k lsp.SymbolKind) string {
	switch k {
	case 8, 13, 14, 22: // field, variable, constant, enumMember
		return "field"
	case 7, 24: // property, event
		return "property"
	case 9:
		return "constructor"
	case 6, 12, 25: // method, function, operator
		return "method"
	}
	return "other"
}

// guessMemberKind reads a member's kind from its first line.
func guessMemberKind(lang, typeName, member string) string {
	t := strings.TrimSpace(member)
	first, _, _ := strings.Cut(t, "\n")
	switch lang {
	case "go":
		if strings.HasPrefix(t, "func") || strings.HasPrefix(t, "//") && strings.Contains(t, "\nfunc") {
			return "method"
		}
		return "field"
	case "python":
		for _, l := range strings.Split(t, "\n") {
			if l = strings.TrimSpace(l); strings.HasPrefix(l, "def ") || strings.HasPrefix(l, "async def ") {
				return "method"
			}
			if l != "" && !strings.HasPrefix(l, "@") && !strings.HasPrefix(l, "#") {
				break
			}
		}
		return "field"
	}
	switch {
	case strings.Contains(first, "{ get") || strings.Contains(first, "{get"):
		return "property"
	case strings.Contains(first, "("):
		if name, _, _ := strings.Cut(first, "("); strings.HasSuffix(strings.TrimSpace(name), typeName) && !strings.Contains(strings.TrimSpace(name), " "+typeName+" ") {
			f := strings.Fields(name)
			if len(f) > 0 && f[len(f)-1] == typeName && (len(f) == 1 || !strings.ContainsAny(f[len(f)-2], "<>[]") && slices.Contains([]string{"public", "private", "protected", "internal", "static"}, f[len(f)-2])) {
				return "constructor"
			}
		}
		return "method"
	}
	return "field"
}

// placeAfter lists, for a group, the groups whose last member a new one
// follows when the type has none of its own, best first.
var placeAfter = map[string][]string{
	"field":       nil,
	"property":    {"field"},
	"constructor": {"property", "field"},
	"method":      {"constructor", "property", "field", "other"},
}

func addMember(ctx context.Context, c *call, in *addMemberInput) (*symbolEditOutput, error) {
	return c.symbolEdit(ctx, "add_member", in.symbolAddress, in.txnOptions, func(ref *symbolRef, text string) (string, symbolCheck, error) {
		typ, err := c.declText(ref, text)
		if err != nil {
			return "", nil, err
		}
		check := c.memberCheck(ref, typ.selEnd)
		if !ref.sym.Kind.IsType() {
			return "", nil, fieldErr(failure.InvalidInput, "symbol", "%s is a %s, not a type; add_member adds to classes, structs, interfaces and enums", ref.selector(), ref.sym.Kind)
		}
		lang := c.s.languageID(ref.doc.path)
		group := in.MemberKind
		if group == "" {
			group = guessMemberKind(lang, baseName(ref.path), in.Member)
		}
		syms, err := c.documentSymbols(ctx, ref.doc)
		if err != nil {
			return "", nil, err
		}
		// The members: the type's children, and for Go the methods
		// declared at top level with it as receiver.
		typeSegs := strings.Split(ref.path, "/")
		var members []lsp.DocumentSymbol
		var topLevel []bool
		for _, ch := range ref.sym.Children {
			members, topLevel = append(members, ch), append(topLevel, false)
		}
		if lang == "go" {
			for _, fs := range flatten(syms) {
				if len(fs.chain) == 1 && len(fs.segs) == len(typeSegs)+1 && slices.Equal(fs.segs[:len(typeSegs)], typeSegs) {
					members, topLevel = append(members, fs.sym()), append(topLevel, true)
				}
			}
		}
		anchor := -1
		for _, g := range append([]string{group}, placeAfter[group]...) {
			for i, m := range members {
				if memberGroup(m.Kind) == g && (anchor < 0 || members[anchor].Range.End.Before(m.Range.End)) {
					anchor = i
				}
			}
			if anchor >= 0 {
				break
			}
		}
		// Fields and properties stack; methods and constructors are
		// set apart by a blank line.
		sep := "\n"
		if group != "field" && group != "property" {
			sep = "\n\n"
		}
		if anchor >= 0 {
			aref := &symbolRef{doc: ref.doc, sym: members[anchor], path: ref.path}
			d, err := c.declText(aref, text)
			if err != nil {
				return "", nil, err
			}
			if lang == "go" && group == "method" && !topLevel[anchor] {
				// A method of a Go struct goes after the type itself.
				d, err = c.declText(ref, text)
				if err != nil {
					return "", nil, err
				}
				at := d.lastLineEnd()
				return text[:at] + "\n\n" + reindent(in.Member, "", "\t") + text[at:], check, nil
			}
			at := d.lastLineEnd()
			return text[:at] + sep + reindent(in.Member, d.indent(), indentUnit(ref.doc.path, text)) + text[at:], check, nil
		}
		d, err := c.declText(ref, text)
		if err != nil {
			return "", nil, err
		}
		unit := indentUnit(ref.doc.path, text)
		if lang == "go" && group == "method" {
			at := d.lastLineEnd()
			return text[:at] + "\n\n" + reindent(in.Member, "", "\t") + text[at:], check, nil
		}
		if d.python {
			colon, ok := d.pythonHeader()
			if !ok {
				return "", nil, fieldErr(failure.Precondition, "symbol", "%s has no body", ref.selector())
			}
			at := lineEnd(text, colon)
			return text[:at] + "\n" + reindent(in.Member, d.indent()+unit, unit) + text[at:], check, nil
		}
		open, close, expr, ok := d.braces()
		if !ok || expr {
			return "", nil, fieldErr(failure.Precondition, "symbol", "%s has no body in braces to add to", ref.selector())
		}
		member := reindent(in.Member, d.indent()+unit, unit)
		if strings.TrimSpace(text[open+1:close]) == "" {
			return text[:open+1] + "\n" + member + "\n" + d.indent() + text[close:], check, nil
		}
		at := lineEnd(text, open)
		return text[:at] + "\n" + member + text[at:], check, nil
	})
}

// ---- update_imports

type updateImportsInput struct {
	File   string   `json:"file" jsonschema:"the file whose imports change"`
	Add    []string `json:"add,omitempty" jsonschema:"imports to add: a Go import path (optionally 'alias path'), a Python module or statement ('os', 'from typing import List'), a C# namespace ('System.Text')"`
	Remove []string `json:"remove,omitempty" jsonschema:"imports to remove, in the same forms"`
	txnOptions
}

func (in *updateImportsInput) validate() error {
	if strings.TrimSpace(in.File) == "" {
		return fieldErr(failure.InvalidInput, "file", "is required")
	}
	if len(in.Add) == 0 && len(in.Remove) == 0 {
		return fieldErr(failure.InvalidInput, "add", "give imports to add or remove")
	}
	for _, key := range []string{"add", "remove"} {
		list := in.Add
		if key == "remove" {
			list = in.Remove
		}
		if len(list) > 100 {
			return fieldErr(failure.InvalidInput, key, "has %d entries; at most 100", len(list))
		}
		for i, s := range list {
			if len(s) > 512 || !importEntryRE().MatchString(strings.TrimSpace(s)) {
				return fieldErr(failure.InvalidInput, fmt.Sprintf("%s[%d]", key, i), "%q is not one import (a Go import path with an optional alias, a Python module or import statement, a C# namespace)", s)
			}
		}
	}
	return in.txnOptions.validate()
}

// importEntryRE is what an update_imports entry may look like in any
// language: names, dots, slashes and the words of an import statement;
// no quotes inside, no statement separators, no line breaks.
var importEntryRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:using[ \t]+)?(?:static[ \t]+)?(?:[A-Za-z_.][\w.]*[ \t]+)?"?[\w.][\w.\-~+/@]*"?(?:[ \t]+import[ \t]+(?:\*|\(?[\w, ]+\)?))?(?:[ \t]+as[ \t]+\w+)?;?$`)
})

func updateImports(ctx context.Context, c *call, in *updateImportsInput) (*symbolEditOutput, error) {
	target, exists, err := c.editFileTarget(in.File)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, fieldErr(failure.NotFound, "file", "%q does not exist in the workspace", in.File)
	}
	rel := c.e.relPath(lsp.URIFromPath(target))
	lang := c.s.languageID(target)
	var proposed []fileChange
	res, err := c.transact(ctx, &txn{
		Operation: "update_imports", Policy: in.Policy, DryRun: in.DryRun,
		Trace: []string{fmt.Sprintf("update_imports %s +%v -%v", rel, in.Add, in.Remove)},
		Lock:  []string{target},
		Postcondition: func(context.Context, map[string]*document) (string, error) {
			return importsCheck(lang, string(proposed[0].new), in.Add, in.Remove), nil
		},
		Propose: func(ctx context.Context) ([]fileChange, error) {
			old, _, err := readRegular(target, maxPeekSize)
			if err != nil {
				return nil, failure.Wrap(failure.Precondition, err, "reading %s", rel)
			}
			text, err := editImports(lang, string(old), in.Add, in.Remove)
			if err != nil {
				return nil, err
			}
			proposed = []fileChange{{path: target, rel: rel, old: old, new: []byte(text), editCount: len(in.Add) + len(in.Remove)}}
			return proposed, nil
		},
	})
	if err := c.withPacket(ctx, err, in.Packet, proposed); err != nil {
		return nil, err
	}
	out := &symbolEditOutput{Symbol: rel, TxnResult: *res}
	out.Packet, err = c.deltaPacket(ctx, in.Packet, res, proposed)
	return out, err
}

// importSyntax is how one language writes an import statement.
type importSyntax struct {
	// line renders an input entry as its import line; key is what two
	// lines importing the same thing share.
	line func(entry string) (line, key string)
	// is reports whether a line is an import line.
	is func(line string) bool
}

var importSyntaxes = map[string]importSyntax{
	"go": {
		line: func(e string) (string, string) {
			f := strings.Fields(e)
			p := strings.Trim(f[len(f)-1], `"`)
			if len(f) > 1 {
				return "\t" + f[0] + ` "` + p + `"`, p
			}
			return "\t" + `"` + p + `"`, p
		},
		is: func(l string) bool {
			t := strings.TrimSpace(l)
			return strings.HasSuffix(t, `"`) && strings.Count(t, `"`) == 2 && !strings.Contains(t, "(")
		},
	},
	"python": {
		line: func(e string) (string, string) {
			e = strings.Join(strings.Fields(e), " ")
			if !strings.HasPrefix(e, "import ") && !strings.HasPrefix(e, "from ") {
				e = "import " + e
			}
			return e, e
		},
		is: func(l string) bool {
			return strings.HasPrefix(l, "import ") || strings.HasPrefix(l, "from ") && strings.Contains(l, " import ")
		},
	},
	"csharp": {
		line: func(e string) (string, string) {
			e = strings.TrimSuffix(strings.TrimPrefix(strings.Join(strings.Fields(e), " "), "using "), ";")
			return "using " + e + ";", e
		},
		is: func(l string) bool {
			return strings.HasPrefix(l, "using ") && strings.HasSuffix(strings.TrimSpace(l), ";") && !strings.Contains(l, "(")
		},
	},
}

// editImports adds and removes import lines. Go imports go into the
// file's import block (made when there is none), each language's new
// lines after the last import line, in sorted position among them.
func editImports(lang, text string, add, remove []string) (string, error) {
	syn, ok := importSyntaxes[lang]
	if !ok {
		return "", failure.New(failure.Unsupported, "update_imports does not know the imports of %s files", lang)
	}
	lines := strings.SplitAfter(text, "\n")
	keyOf := func(l string) string {
		if !syn.is(l) {
			return ""
		}
		if lang == "go" {
			_, k := syn.line(strings.TrimSpace(l))
			return k
		}
		_, k := syn.line(strings.TrimSpace(l))
		return k
	}
	// The import region: Go's import ( ... ) block or single imports, the
	// leading import lines of Python and C#.
	first, last := -1, -1
	inBlock := false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case lang == "go" && t == "import (":
			inBlock = true
			if first < 0 {
				first = i
			}
		case lang == "go" && inBlock && t == ")":
			inBlock, last = false, i
		case lang == "go" && strings.HasPrefix(t, "import ") && !inBlock:
			if first < 0 {
				first = i
			}
			last = i
		case lang != "go" && keyOf(l) != "" && indentOf(l) == "":
			if first < 0 {
				first = i
			}
			last = i
		}
		if lang != "go" && first >= 0 && t != "" && !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "//") && keyOf(l) == "" {
			break
		}
		if lang == "go" && (strings.HasPrefix(t, "func ") || strings.HasPrefix(t, "type ") || strings.HasPrefix(t, "var ") || strings.HasPrefix(t, "const ")) {
			break
		}
	}
	for i, r := range remove {
		_, key := syn.line(r)
		found := false
		for j := max(first, 0); j <= last && first >= 0; j++ {
			if keyOf(strings.TrimPrefix(lines[j], "import ")) == key || keyOf(lines[j]) == key {
				lines[j], found = "", true
			}
		}
		if !found {
			return "", fieldErr(failure.AnchorNotResolved, fmt.Sprintf("remove[%d]", i), "%q is not imported", r)
		}
	}
	var fresh []string
	for _, a := range add {
		line, key := syn.line(a)
		present := false
		for j := max(first, 0); j <= last && first >= 0; j++ {
			if keyOf(strings.TrimPrefix(lines[j], "import ")) == key || keyOf(lines[j]) == key {
				present = true
			}
		}
		if !present && !slices.Contains(fresh, line) {
			fresh = append(fresh, line)
		}
	}
	slices.Sort(fresh)
	if lang == "go" && len(fresh) > 0 {
		switch {
		case first >= 0 && strings.TrimSpace(lines[first]) == "import (":
			// Into the block, before the first line sorting after it.
		case first >= 0:
			// Single imports become a block.
			var specs []string
			for j := first; j <= last; j++ {
				if t := strings.TrimSpace(lines[j]); strings.HasPrefix(t, "import ") {
					specs = append(specs, "\t"+strings.TrimSpace(strings.TrimPrefix(t, "import "))+"\n")
					lines[j] = ""
				}
			}
			lines[first] = "import (\n" + strings.Join(specs, "") + ")\n"
			return editImports(lang, strings.Join(lines, ""), add, nil)
		default:
			pkg := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "package ") })
			if pkg < 0 {
				return "", fieldErr(failure.Precondition, "file", "no package clause to put the imports after")
			}
			lines[pkg] += "\nimport (\n)\n"
			return editImports(lang, strings.Join(lines, ""), add, nil)
		}
	}
	for _, line := range fresh {
		_, key := syn.line(strings.TrimSpace(line))
		at := -1
		if first >= 0 {
			at = last + 1
			if lang == "go" {
				at = last // before the )
			}
			for j := first; j <= last; j++ {
				if k := keyOf(lines[j]); k != "" && k > key {
					at = j
					break
				}
			}
		}
		switch {
		case at < 0:
			// No imports yet: at the top, after leading comments.
			at = 0
			for at < len(lines) && (strings.HasPrefix(lines[at], "#") || strings.HasPrefix(lines[at], "//")) {
				at++
			}
			lines = slices.Insert(lines, at, line+"\n\n")
			first, last = at, at
		default:
			lines = slices.Insert(lines, at, line+"\n")
			last++
		}
	}
	return strings.Join(lines, ""), nil
}

// ---- rename_symbol

type renameSymbolInput struct {
	symbolAddress
	NewName string `json:"new_name" jsonschema:"the new name"`
	txnOptions
}

func (in *renameSymbolInput) validate() error {
	if err := checkText("new_name", in.NewName, true); err != nil {
		return err
	}
	if strings.ContainsAny(in.NewName, " \t\r\n/\\") {
		return fieldErr(failure.InvalidInput, "new_name", "%q is not an identifier", in.NewName)
	}
	return in.txnOptions.validate()
}

func renameSymbol(ctx context.Context, c *call, in *renameSymbolInput) (*symbolEditOutput, error) {
	if err := c.s.require("renameProvider", "textDocument/rename"); err != nil {
		return nil, err
	}
	ref, err := c.resolveNamePath(ctx, "symbol", in.File, in.Symbol, in.Kind, failure.AnchorNotResolved)
	if err != nil {
		return nil, err
	}
	doc, err := c.s.document(ctx, ref.doc.path)
	if err != nil {
		return nil, err
	}
	params := c.docPos(doc, ref.sym.SelectionRange.Start)
	params["newName"] = in.NewName
	changes, err := c.editChanges(ctx, func(ctx context.Context) (*lsp.WorkspaceEdit, error) {
		var edit lsp.WorkspaceEdit
		if err := c.s.call(ctx, "textDocument/rename", params, &edit); err != nil {
			return nil, failure.Wrap(failure.Precondition, err, "%s refused to rename %s", c.s.name, ref.selector())
		}
		return &edit, nil
	})
	if err != nil {
		return nil, err
	}
	check := func(ctx context.Context, overlays map[string]*document) (string, error) {
		i := slices.IndexFunc(changes, func(ch fileChange) bool { return ch.path == ref.doc.path })
		if i < 0 {
			return fmt.Sprintf("%s's edit does not change %s, which declares %s", c.s.name, c.e.relPath(ref.doc.uri), ref.selector()), nil
		}
		return c.checkSymbols(ctx, overlays, changes[i], renamedCheck(ref, in.NewName))
	}
	return c.transactChanges(ctx, "rename_symbol", fmt.Sprintf("rename_symbol %s -> %s", ref.selector(), in.NewName), ref, changes, in.txnOptions, check)
}

// transactChanges runs a transaction over changes a server computed,
// checked by post when it is not nil.
func (c *call) transactChanges(ctx context.Context, op, trace string, ref *symbolRef, changes []fileChange, opts txnOptions, post func(context.Context, map[string]*document) (string, error)) (*symbolEditOutput, error) {
	out := &symbolEditOutput{}
	if ref != nil {
		out.Symbol, out.SymbolID = ref.selector(), c.symbolID(ref)
	}
	for _, ch := range changes {
		if err := c.checkWritable(ch.rel, ch.create); err != nil {
			return nil, err
		}
	}
	res, err := c.transact(ctx, &txn{Operation: op, Policy: opts.Policy, DryRun: opts.DryRun, Trace: []string{trace}, Changes: changes, Postcondition: post})
	if err := c.withPacket(ctx, err, opts.Packet, changes); err != nil {
		return nil, err
	}
	out.TxnResult = *res
	out.Packet, err = c.deltaPacket(ctx, opts.Packet, res, changes)
	return out, err
}

// ---- apply_code_action

type applyCodeActionInput struct {
	File    string `json:"file,omitempty" jsonschema:"the file (with line, or to scope symbol)"`
	Symbol  string `json:"symbol,omitempty" jsonschema:"name path of the declaration whose range the actions are asked for (instead of line)"`
	Line    int    `json:"line,omitempty" jsonschema:"1-based first line of the range (instead of symbol)"`
	EndLine int    `json:"end_line,omitempty" jsonschema:"1-based last line of the range (default: line)"`
	Title   string `json:"title,omitempty" jsonschema:"exact title of the action, as the server lists it"`
	// ActionKind is not "kind": that key is the symbol kind elsewhere.
	ActionKind string `json:"action_kind,omitempty" jsonschema:"code action kind, e.g. quickfix, refactor.rewrite, source.organizeImports (the preferred one when several have it)"`
	txnOptions
}

func (in *applyCodeActionInput) validate() error {
	switch {
	case in.Title == "" && in.ActionKind == "":
		return fieldErr(failure.InvalidInput, "title", "give the title or the action_kind of the action")
	case in.Symbol == "" && in.Line == 0:
		return fieldErr(failure.InvalidInput, "symbol", "give symbol, or file with line")
	case in.Line != 0 && in.File == "":
		return fieldErr(failure.InvalidInput, "file", "is required with line")
	case in.Line < 0 || in.EndLine < 0 || in.EndLine != 0 && in.EndLine < in.Line:
		return fieldErr(failure.InvalidInput, "end_line", "the range %d-%d is not a range of lines", in.Line, in.EndLine)
	}
	return in.txnOptions.validate()
}

func applyCodeAction(ctx context.Context, c *call, in *applyCodeActionInput) (*symbolEditOutput, error) {
	if err := c.s.require("codeActionProvider", "textDocument/codeAction"); err != nil {
		return nil, err
	}
	var ref *symbolRef
	var doc *document
	var rng lsp.Range
	if in.Symbol != "" {
		var err error
		if ref, err = c.resolveNamePath(ctx, "symbol", in.File, in.Symbol, "", failure.AnchorNotResolved); err != nil {
			return nil, err
		}
		if doc, err = c.s.document(ctx, ref.doc.path); err != nil {
			return nil, err
		}
		rng = ref.sym.Range
	} else {
		var err error
		if doc, err = c.open(ctx, "file", in.File); err != nil {
			return nil, err
		}
		start, err := c.position(doc, in.File, in.Line, 1, "line", "line")
		if err != nil {
			return nil, err
		}
		endLine := max(in.EndLine, in.Line)
		if endLine > doc.mapper.LineCount() {
			return nil, fieldErr(failure.InvalidInput, "end_line", "%s has %d lines", in.File, doc.mapper.LineCount())
		}
		end, err := c.position(doc, in.File, endLine, len([]rune(doc.mapper.LineText(endLine)))+1, "end_line", "end_line")
		if err != nil {
			return nil, err
		}
		rng = lsp.Range{Start: start, End: end}
	}
	pick := func(ctx context.Context) (lsp.CodeAction, error) {
		actions, err := c.codeActionsAt(ctx, doc, rng, nil)
		if err != nil {
			return lsp.CodeAction{}, err
		}
		return pickAction(actions, in.Title, in.ActionKind)
	}
	selected, err := pick(ctx)
	if err != nil {
		return nil, err
	}
	asked := false
	changes, err := c.editChanges(ctx, func(ctx context.Context) (*lsp.WorkspaceEdit, error) {
		if asked {
			// Again, now that every file the edit touches is open.
			if selected, err = pick(ctx); err != nil {
				return nil, err
			}
		}
		asked = true
		return c.actionEdit(ctx, selected)
	})
	if err != nil {
		return nil, err
	}
	return c.transactChanges(ctx, "apply_code_action", fmt.Sprintf("apply_code_action %q in %s", selected.Title, c.e.relPath(doc.uri)), ref, changes, in.txnOptions, nil)
}

// pickAction selects the action by exact title, else by kind (the
// preferred one among several).
func pickAction(actions []lsp.CodeAction, title, kind string) (lsp.CodeAction, error) {
	var found []lsp.CodeAction
	for _, a := range actions {
		switch {
		case title != "" && a.Title == title:
			return a, nil
		case title == "" && (a.Kind == kind || strings.HasPrefix(a.Kind, kind+".")):
			found = append(found, a)
		}
	}
	if len(found) > 1 {
		if i := slices.IndexFunc(found, func(a lsp.CodeAction) bool { return a.IsPreferred }); i >= 0 {
			return found[i], nil
		}
		titles := make([]string, len(found))
		for i, a := range found {
			titles[i] = a.Title
		}
		err := fieldErr(failure.Ambiguous, "action_kind", "%d code actions have kind %s; give the title of one", len(found), kind)
		err.Details = map[string]any{"candidates": titles}
		return lsp.CodeAction{}, err
	}
	if len(found) == 1 {
		return found[0], nil
	}
	titles := make([]string, len(actions))
	for i, a := range actions {
		titles[i] = a.Title
	}
	key, want := "title", title
	if title == "" {
		key, want = "action_kind", kind
	}
	err := fieldErr(failure.AnchorNotResolved, key, "the server offers no code action %q there (%d offered)", want, len(actions))
	err.Details = map[string]any{"candidates": titles}
	return lsp.CodeAction{}, err
}

// ---- get_file_content

// Bounds of get_file_content's output.
const (
	maxContentLines = 2000
	maxLineRunes    = 2000
)

type fileContentInput struct {
	File      string `json:"file" jsonschema:"file path, relative to the workspace root or absolute inside it"`
	StartLine int    `json:"start_line,omitempty" jsonschema:"1-based first line (default 1)"`
	EndLine   int    `json:"end_line,omitempty" jsonschema:"1-based last line (default: the end, at most 2000 lines)"`
}

func (in *fileContentInput) validate() error {
	switch {
	case strings.TrimSpace(in.File) == "":
		return fieldErr(failure.InvalidInput, "file", "is required")
	case in.StartLine < 0:
		return fieldErr(failure.InvalidInput, "start_line", "must be positive")
	case in.EndLine < 0 || in.EndLine != 0 && in.EndLine < in.StartLine:
		return fieldErr(failure.InvalidInput, "end_line", "must not be before start_line")
	}
	return nil
}

type fileContentOutput struct {
	File       string `json:"file"`
	StartLine  int    `json:"start_line"`
	EndLine    int    `json:"end_line"`
	TotalLines int    `json:"total_lines"`
	SHA256     string `json:"sha256" jsonschema:"hash of the whole file's content"`
	Content    string `json:"content" jsonschema:"the lines, each prefixed with its number and a tab"`
	Truncated  bool   `json:"truncated,omitempty" jsonschema:"the range was cut at 2000 lines, or a line at 2000 characters"`
}

func getFileContent(ctx context.Context, c *call, in *fileContentInput) (*fileContentOutput, error) {
	abs, err := c.e.resolvePath("file", in.File)
	if err != nil {
		return nil, err
	}
	f, err := c.s.read(abs)
	if err != nil {
		return nil, failure.Wrap(failure.CodeOf(err), err, "reading %s", in.File)
	}
	m := f.mapper
	total := m.LineCount()
	if len(m.Content()) > 0 && m.Content()[len(m.Content())-1] == '\n' {
		total-- // the empty "line" after the final newline
	}
	start := max(in.StartLine, 1)
	if start > max(total, 1) {
		return nil, fieldErr(failure.InvalidInput, "start_line", "%s has %d lines", in.File, total)
	}
	end := in.EndLine
	if end == 0 || end > total {
		end = total
	}
	out := &fileContentOutput{File: c.e.relPath(lsp.URIFromPath(f.path)), StartLine: start, TotalLines: total, SHA256: contentHash(m.Content())}
	if end-start+1 > maxContentLines {
		end, out.Truncated = start+maxContentLines-1, true
	}
	out.EndLine = end
	var b strings.Builder
	width := len(fmt.Sprint(end))
	for n := start; n <= end; n++ {
		line := []rune(m.LineText(n))
		if len(line) > maxLineRunes {
			line, out.Truncated = append(line[:maxLineRunes], '…'), true
		}
		fmt.Fprintf(&b, "%*d\t%s\n", width, n, string(line))
	}
	out.Content = b.String()
	return out, nil
}
