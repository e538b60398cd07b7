package dotnet

import (
	"context"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/langhost/langhost/plugins/dotnet/cslex"
)

// ProjectNamespaces is the namespaces declared by one project's sources.
type ProjectNamespaces struct {
	Project    string          `json:"project"`
	Namespaces []NamespaceInfo `json:"namespaces"`
}

// NamespaceInfo is one namespace and the files that declare it.
type NamespaceInfo struct {
	Name  string   `json:"name"`
	Files []string `json:"files"`
}

var namespaceRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\bnamespace\s+([A-Za-z_@][A-Za-z0-9_.@\s]*?)\s*([;{])`)
})

// Namespaces scans the source files of spec (every project when spec is
// empty) for namespace declarations, file-scoped and block (nested blocks
// are joined: namespace A { namespace B {} } declares A.B).
func Namespaces(ctx context.Context, root, spec string, opts Options) ([]ProjectNamespaces, error) {
	t, err := newTree(root)
	if err != nil {
		return nil, err
	}
	root = t.root
	var projects []string
	if spec != "" {
		abs, err := t.resolveProject(ctx, spec)
		if err != nil {
			return nil, err
		}
		projects = []string{abs}
	} else {
		ws, err := t.listProjects(ctx)
		if err != nil {
			return nil, err
		}
		for _, p := range ws.Projects {
			if p.Exists {
				projects = append(projects, msbuildPath(root, p.Path))
			}
		}
	}
	out := []ProjectNamespaces{}
	for _, abs := range projects {
		p, err := t.evaluateProject(ctx, abs, opts)
		if err != nil {
			return nil, err
		}
		byName := map[string][]string{}
		for _, f := range p.SourceFiles {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			src, err := t.readFile(msbuildPath(root, f), f)
			if err != nil {
				return nil, err
			}
			for _, ns := range DeclaredNamespaces(src) {
				byName[ns] = append(byName[ns], f)
			}
		}
		pn := ProjectNamespaces{Project: p.Path, Namespaces: []NamespaceInfo{}}
		for name, files := range byName {
			sort.Strings(files)
			pn.Namespaces = append(pn.Namespaces, NamespaceInfo{Name: name, Files: dedupe(files)})
		}
		sort.Slice(pn.Namespaces, func(i, j int) bool { return pn.Namespaces[i].Name < pn.Namespaces[j].Name })
		out = append(out, pn)
	}
	return out, nil
}

// DeclaredNamespaces returns the fully qualified namespaces declared in a
// C# source file, in order of appearance, ignoring comments and strings.
func DeclaredNamespaces(src []byte) []string {
	code := string(cslex.Mask(src))
	type frame struct {
		name  string
		depth int // brace depth inside the namespace block
	}
	var (
		out      []string
		stack    []frame
		depth    int
		fileNS   string
		matches  = namespaceRE().FindAllStringSubmatchIndex(code, -1)
		next     int
		seen     = map[string]bool{}
		emitOnce = func(ns string) {
			if !seen[ns] {
				seen[ns] = true
				out = append(out, ns)
			}
		}
	)
	for i := 0; i < len(code); i++ {
		if next < len(matches) && i == matches[next][0] {
			m := matches[next]
			next++
			name := strings.Join(strings.Fields(code[m[2]:m[3]]), "")
			if code[m[4]] == ';' {
				fileNS = name
				emitOnce(name)
				i = m[1] - 1
				continue
			}
			full := name
			if len(stack) > 0 {
				full = stack[len(stack)-1].name + "." + name
			} else if fileNS != "" {
				full = fileNS + "." + name
			}
			emitOnce(full)
			depth++
			stack = append(stack, frame{name: full, depth: depth})
			i = m[1] - 1
			continue
		}
		switch code[i] {
		case '{':
			depth++
		case '}':
			if len(stack) > 0 && stack[len(stack)-1].depth == depth {
				stack = stack[:len(stack)-1]
			}
			depth--
		}
	}
	return out
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
