package main

import (
	"context"
	"fmt"
	"log"
	"slices"
	"strings"

	"github.com/langhost/langhost/internal/difftest"
)

// csPicks are the targets of the C# operations, picked from the
// solution's own symbols.
type csPicks struct {
	types     []symbol   // interfaces, partial, generic, nested and prefix types
	members   []symbol   // widely used, overloaded and generic members
	bodies    []symbol   // members with a body of three lines or more
	queries   []string   // find_symbol's
	overloads []csTarget // Type/Method name paths
}

// pickCSharp indexes the solution through a bare csharp-ls and picks
// targets by category, as the differential harness does, so that the
// bench runs on any solution.
func pickCSharp(ctx context.Context, ws string) (csPicks, error) {
	lang := difftest.Languages["csharp"]
	files, err := difftest.SourceFiles(ws, lang, 400)
	if err != nil {
		return csPicks{}, err
	}
	log.Printf("csharp-ls: picking targets from %d files", len(files))
	raw, err := difftest.StartRaw(ctx, lang, ws)
	if err != nil {
		return csPicks{}, err
	}
	defer raw.Close()
	ix, err := difftest.IndexWorkspace(ctx, raw, files, 3)
	if err != nil {
		return csPicks{}, err
	}
	var p csPicks
	seen := map[string]bool{}
	for _, t := range ix.Targets {
		d := t.Decl
		if t.At != d.Loc || seen[d.Loc.String()] {
			continue // a position in text, or picked already
		}
		seen[d.Loc.String()] = true
		s := symbol{file: d.File, ident: d.BareName(), line: d.Line, column: d.Column}
		switch {
		case d.IsType():
			p.types = append(p.types, s)
		case d.IsFunc():
			p.members = append(p.members, s)
			if d.EndLine >= d.Line+3 {
				p.bodies = append(p.bodies, s)
			}
			if t.Why == "overload" && len(d.Container) > 0 {
				p.overloads = append(p.overloads, csTarget{namePath: difftestBare(d.Container[len(d.Container)-1]) + "/" + d.BareName(), symbol: symbol{file: d.File}})
			}
		}
		if !slices.Contains(p.queries, d.BareName()) {
			p.queries = append(p.queries, d.BareName())
		}
	}
	if len(p.types) == 0 || len(p.members) == 0 {
		return csPicks{}, fmt.Errorf("%s: no types or members to measure among %d declarations", ws, len(ix.Decls))
	}
	return p, nil
}

// difftestBare is a container's name as a name path segment: without
// generic parameters.
func difftestBare(name string) string {
	if i := strings.IndexAny(name, "<("); i > 0 {
		return name[:i]
	}
	return name
}
