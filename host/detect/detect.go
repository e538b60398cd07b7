// Package detect finds the languages a workspace uses, so that a server
// offers the tools of those languages rather than of every loaded spec.
//
// A language is detected by a file with one of its spec's extensions, or
// by a file matching one of its projectFiles or its language servers'
// rootMarkers. A marker that several languages list (package.json for
// JavaScript and TypeScript) counts only together with a source file: it
// alone does not say which of them the workspace uses. A marker alone
// (a Makefile, with no .c file anywhere) also yields to a language that has
// both sources and a project file as near the root: the Makefile of a Go
// module builds Go, it does not make a C project.
//
// Languages are ranked by how many of their source files the walk saw, and
// a language counts as the workspace's project only with a share of the
// sources: three .js files beside five hundred .ts files are not a
// JavaScript project, whatever package.json says.
//
// Files under a directory of samples (testdata, fixtures, examples,
// third_party, ...) say nothing about what the workspace is: a Go module
// testing a Rust parser keeps Cargo.toml files in testdata. A language seen
// only there is listed as ignored, with the reason, and served on request.
//
// The walk is bounded in depth and in entries, skips the directories every
// scan skips (workspace.SkipDir: .git, node_modules, vendor, ...) and
// never follows a symbolic link, so it stays inside the workspace.
package detect

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/internal/workspace"
)

// Default limits of the walk.
const (
	DefaultMaxDepth   = 8
	DefaultMaxEntries = 20000
)

// Limits bound the walk; zero fields take the defaults.
type Limits struct {
	MaxDepth   int // directories below the root that are entered
	MaxEntries int // files and directories looked at
}

// Language is a detected language and why.
type Language struct {
	ID string `json:"id"`
	// Reasons are the evidence, e.g. "12 files with extension .go, e.g.
	// main.go", "go.mod is a project file"; for an ignored language, why it
	// was not chosen.
	Reasons []string `json:"reasons"`
	// Files is how many source files (by extension) the walk saw.
	Files int `json:"files"`
	// Project is set when a project file of the language lies at the
	// root or one directory below it: the workspace is (partly) a project
	// of that language, not just a holder of a few of its files (test
	// data, scripts).
	Project bool `json:"project,omitempty"`
	// Main is set for the languages the workspace is a project of: a
	// project language, or one holding a share of the sources. They are
	// what `langhost mcp` serves by default; when no language is main,
	// every detected one is.
	Main bool `json:"main,omitempty"`
}

func (l Language) String() string { return l.ID + " (" + strings.Join(l.Reasons, "; ") + ")" }

// Result is the outcome of a walk.
type Result struct {
	// Languages are ranked: most source files first, then by id.
	Languages []Language `json:"languages"`
	// Ignored are languages that had evidence (a project file) but were
	// not chosen, with the reason.
	Ignored []Language `json:"ignored,omitempty"`
	// Entries is how many files and directories were looked at;
	// Truncated says the walk stopped at a limit before seeing them all.
	Entries   int  `json:"entries"`
	Truncated bool `json:"truncated"`
}

// IDs returns the ids of the detected languages.
func (r *Result) IDs() []string {
	ids := make([]string, len(r.Languages))
	for i, l := range r.Languages {
		ids[i] = l.ID
	}
	return ids
}

// MainIDs returns the ids of the main languages (Language.Main), ranked.
func (r *Result) MainIDs() []string {
	var ids []string
	for _, l := range r.Languages {
		if l.Main {
			ids = append(ids, l.ID)
		}
	}
	return ids
}

// sampleDirs hold samples of other projects (test data, fixtures,
// examples, vendored or third-party code), not the workspace's own
// sources; case is ignored.
var sampleDirs = []string{
	"testdata", "test-data", "test_data", "fixtures", "fixture", "__fixtures__",
	"examples", "example", "samples", "sample", "third_party", "third-party", "thirdparty",
}

// sampleDir reports whether a directory named name holds samples.
func sampleDir(name string) bool {
	for _, d := range sampleDirs {
		if strings.EqualFold(name, d) {
			return true
		}
	}
	return false
}

// inSamples reports whether the workspace-relative slash path rel lies
// under a directory of samples.
func inSamples(rel string) bool {
	dir, _ := path.Split(rel)
	for _, name := range strings.Split(strings.TrimSuffix(dir, "/"), "/") {
		if sampleDir(name) {
			return true
		}
	}
	return false
}

// maxMarkers is how many project files are kept as evidence per language.
const maxMarkers = 2

// projectShare is the part of the top language's source files another
// language needs to count as a project of the workspace too.
const projectShare = 10

// rule is what identifies one language.
type rule struct {
	id      string
	exts    []string // lower case, with the dot
	markers []marker
}

type marker struct {
	pattern string // path.Match pattern against a file's base name
	shared  bool   // another language lists it too
}

// evidence is what the walk saw of one language.
type evidence struct {
	files     int
	firstFile string   // the first source file seen
	exts      []string // the extensions seen, in order
	markers   []projectFile
	shared    []projectFile // markers another language lists too
	// samples counts the source and project files under directories of
	// samples (inSamples), which count for nothing else.
	samples     int
	firstSample string
}

// projectFile is a project file found by the walk.
type projectFile struct {
	rel   string
	depth int // directories below the root
}

// Detect walks the workspace at root and returns the languages of langs
// that it uses. A root that cannot be read is an error; an unreadable
// directory below it is skipped.
func Detect(ctx context.Context, root string, langs []*spec.File, limits Limits) (*Result, error) {
	if limits.MaxDepth <= 0 {
		limits.MaxDepth = DefaultMaxDepth
	}
	if limits.MaxEntries <= 0 {
		limits.MaxEntries = DefaultMaxEntries
	}
	rules := rulesOf(langs)
	seen := map[string]*evidence{}
	of := func(id string) *evidence {
		e := seen[id]
		if e == nil {
			e = &evidence{}
			seen[id] = e
		}
		return e
	}
	res := &Result{}
	errStop := errors.New("stop")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // an unreadable directory: skip it
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if p == root {
			return nil
		}
		res.Entries++
		if res.Entries > limits.MaxEntries {
			res.Truncated = true
			return errStop
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		name := d.Name()
		depth := strings.Count(rel, "/")
		if d.IsDir() {
			if workspace.SkipDir(name) || depth+1 > limits.MaxDepth {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil // symlinks, sockets, devices: never followed or read
		}
		ext := strings.ToLower(filepath.Ext(name))
		sample := inSamples(rel)
		for _, r := range rules {
			if sample {
				if ext != "" && slices.Contains(r.exts, ext) || r.marks(name) {
					e := of(r.id)
					if e.samples == 0 {
						e.firstSample = rel
					}
					e.samples++
				}
				continue
			}
			if ext != "" && slices.Contains(r.exts, ext) {
				e := of(r.id)
				if e.files == 0 {
					e.firstFile = rel
				}
				e.files++
				if !slices.Contains(e.exts, ext) {
					e.exts = append(e.exts, ext)
				}
			}
			for _, m := range r.markers {
				if ok, _ := path.Match(m.pattern, name); !ok {
					continue
				}
				e := of(r.id)
				pf := projectFile{rel: rel, depth: depth}
				if m.shared {
					e.shared = append(e.shared, pf)
				} else {
					e.markers = append(e.markers, pf)
				}
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, fmt.Errorf("detect languages in %s: %w", root, err)
	}
	rank(res, rules, seen)
	return res, nil
}

// rank turns the evidence into the result: which languages are chosen,
// in which order, which of them are projects, and why.
func rank(res *Result, rules []rule, seen map[string]*evidence) {
	// withSources is the shallowest project file depth of the languages
	// that have both sources and a project file of their own.
	withSources := -1
	top := 0
	for _, e := range seen {
		if e.files == 0 {
			continue
		}
		top = max(top, e.files)
		for _, pf := range slices.Concat(e.markers, e.shared) {
			if withSources < 0 || pf.depth < withSources {
				withSources = pf.depth
			}
		}
	}
	owner := map[int]string{} // depth -> a language with sources and a project file there
	for _, r := range rules {
		if e := seen[r.id]; e != nil && e.files > 0 {
			for _, pf := range slices.Concat(e.markers, e.shared) {
				if _, ok := owner[pf.depth]; !ok {
					owner[pf.depth] = r.id
				}
			}
		}
	}
	for _, r := range rules {
		e := seen[r.id]
		if e == nil {
			continue
		}
		l := Language{ID: r.id, Files: e.files}
		if e.files == 0 && len(e.markers) == 0 && len(e.shared) == 0 {
			l.Reasons = []string{fmt.Sprintf("only in test data, fixtures, examples or third-party code (%d %s, e.g. %s)",
				e.samples, plural(e.samples, "file", "files"), e.firstSample)}
			res.Ignored = append(res.Ignored, l)
			continue
		}
		markers := e.markers
		if e.files > 0 {
			// A shared marker counts once a source file says which
			// language the workspace uses.
			markers = slices.Concat(e.markers, e.shared)
			l.Reasons = append(l.Reasons, fmt.Sprintf("%d %s with extension %s, e.g. %s",
				e.files, plural(e.files, "file", "files"), strings.Join(e.exts, " or "), e.firstFile))
		}
		if len(markers) == 0 {
			switch {
			case e.files > 0:
				l.Main = e.files*projectShare >= top
				res.Languages = append(res.Languages, l)
			case len(e.shared) > 0:
				l.Reasons = []string{fmt.Sprintf("%s is a project file, but no source file says the workspace uses %s rather than another language that lists it",
					e.shared[0].rel, r.id)}
				res.Ignored = append(res.Ignored, l)
			}
			continue
		}
		slices.SortStableFunc(markers, func(a, b projectFile) int { return a.depth - b.depth })
		if e.files == 0 && withSources >= 0 && withSources <= markers[0].depth {
			l.Reasons = []string{fmt.Sprintf("%s is a project file, but the workspace has no file with extension %s and is a %s project",
				markers[0].rel, strings.Join(r.exts, " or "), owner[withSources])}
			res.Ignored = append(res.Ignored, l)
			continue
		}
		for i, pf := range markers {
			if i == maxMarkers {
				break
			}
			l.Reasons = append(l.Reasons, pf.rel+" is a project file")
		}
		// A project file at the root or one below, and a share of the
		// sources: the workspace is (partly) a project of the language.
		l.Project = markers[0].depth <= 1 && (e.files == 0 || e.files*projectShare >= top)
		l.Main = l.Project || e.files*projectShare >= top
		res.Languages = append(res.Languages, l)
	}
	if !slices.ContainsFunc(res.Languages, func(l Language) bool { return l.Main }) {
		for i := range res.Languages {
			res.Languages[i].Main = true
		}
	}
	order := func(a, b Language) int {
		if a.Files != b.Files {
			return b.Files - a.Files
		}
		return strings.Compare(a.ID, b.ID)
	}
	slices.SortFunc(res.Languages, order)
	slices.SortFunc(res.Ignored, order)
}

// marks reports whether a file named name is one of r's project files.
func (r rule) marks(name string) bool {
	for _, m := range r.markers {
		if ok, _ := path.Match(m.pattern, name); ok {
			return true
		}
	}
	return false
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// rulesOf collects the extensions and markers of each language, marking
// the markers that more than one language lists.
func rulesOf(langs []*spec.File) []rule {
	count := map[string]int{}
	rules := make([]rule, 0, len(langs))
	for _, f := range langs {
		r := rule{id: f.Language.ID}
		for _, e := range f.Language.Extensions {
			if e = strings.ToLower(strings.TrimSpace(e)); e != "" {
				if !strings.HasPrefix(e, ".") {
					e = "." + e
				}
				r.exts = append(r.exts, e)
			}
		}
		patterns := slices.Clone(f.Language.ProjectFiles)
		if f.Semantic != nil {
			servers := f.Semantic.Candidates
			if len(servers) == 0 {
				servers = []*spec.Server{&f.Semantic.Server}
			}
			for _, s := range servers {
				patterns = append(patterns, s.RootMarkers...)
			}
		}
		seen := map[string]bool{}
		for _, p := range patterns {
			// A marker names a file, not a path; a bad glob is dropped
			// (spec validation reports it).
			if p == "" || strings.Contains(p, "/") || seen[p] {
				continue
			}
			if _, err := path.Match(p, ""); err != nil {
				continue
			}
			seen[p] = true
			count[p]++
			r.markers = append(r.markers, marker{pattern: p})
		}
		rules = append(rules, r)
	}
	for i := range rules {
		for j := range rules[i].markers {
			rules[i].markers[j].shared = count[rules[i].markers[j].pattern] > 1
		}
	}
	return rules
}
