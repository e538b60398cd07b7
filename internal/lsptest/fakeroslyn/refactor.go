package main

import (
	"fmt"
	"strings"
)

// Refactorings the structured edit tests apply through code actions, as
// Roslyn offers them: "Implement interface" on a type that lacks members
// of an interface it names.

// refactorings lists the refactoring code actions for a range of f.
func (s *server) refactorings(f *file, r lspRange, wants func(kind string) bool) []any {
	var out []any
	if !wants("quickfix") {
		return out
	}
	for _, t := range f.Symbols {
		if !t.isType() || t.Kind == kindInterface || t.EndLine < r.Start.Line || t.Line > r.End.Line {
			continue
		}
		for _, iface := range s.missingInterfaces(t) {
			out = append(out, s.action(fmt.Sprintf("Implement interface '%s'", iface.Name), "quickfix", nil,
				codeActionData{URI: f.URI, Action: "implementInterface:" + iface.Name, Line: t.Line}))
		}
	}
	return out
}

// missingInterfaces are the interfaces t names whose members it does not
// all declare.
func (s *server) missingInterfaces(t *symbol) []*symbol {
	var out []*symbol
	for _, b := range t.Bases {
		for _, iface := range s.idx.symbolsNamed(b) {
			if iface.Kind == kindInterface && len(missingMembers(t, iface)) > 0 {
				out = append(out, iface)
			}
		}
	}
	return out
}

func missingMembers(t, iface *symbol) []*symbol {
	var out []*symbol
	for _, m := range iface.Children {
		found := false
		for _, c := range t.Children {
			found = found || c.Name == m.Name && c.Kind == m.Kind
		}
		if !found {
			out = append(out, m)
		}
	}
	return out
}

// implementInterfaceEdit adds stubs of the members of the interface named
// in d.Action that the type declared on d.Line lacks, before its closing
// brace.
func (s *server) implementInterfaceEdit(f *file, d codeActionData) ([]textEdit, *rpcError) {
	name := strings.TrimPrefix(d.Action, "implementInterface:")
	var t *symbol
	for _, sym := range f.Symbols {
		if sym.isType() && sym.Line == d.Line {
			t = sym
		}
	}
	if t == nil {
		return nil, &rpcError{Code: codeInvalidParams, Message: fmt.Sprintf("no type on line %d", d.Line)}
	}
	var iface *symbol
	for _, i := range s.idx.symbolsNamed(name) {
		if i.Kind == kindInterface {
			iface = i
		}
	}
	if iface == nil {
		return nil, &rpcError{Code: codeInvalidParams, Message: "unknown interface " + name}
	}
	indent := f.Lines[t.Line][:len(f.Lines[t.Line])-len(strings.TrimLeft(f.Lines[t.Line], " \t"))] + "    "
	var b strings.Builder
	for _, m := range missingMembers(t, iface) {
		// "double IShape.Area()" -> "public double Area()"
		typ, rest, _ := strings.Cut(m.Signature, " ")
		rest = strings.TrimPrefix(rest, iface.Name+".")
		if i := strings.Index(rest, " {"); i >= 0 {
			rest = rest[:i] // a property's accessors
		}
		fmt.Fprintf(&b, "\n%spublic %s %s => throw new System.NotImplementedException();\n", indent, typ, rest)
	}
	return []textEdit{{Range: span(f, t.EndLine, 0, 0), NewText: b.String()}}, nil
}
