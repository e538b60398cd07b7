// Package detect finds the languages a workspace uses, so that a server
// offers the tools of those languages rather than of every loaded spec.
//
// A language is detected by a file with one of its spec's extensions, or
// by a file matching one of its projectFiles or its language servers'
// rootMarkers. A marker that several languages list (package.json for
// JavaScript and TypeScript) counts only together with a source file: it
// alone does not say which of them the workspace uses.
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
	"sort"
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
	// Reasons are the first pieces of evidence, e.g. "main.go has
	// extension .go", "go.mod is a project file".
	Reasons []string `json:"reasons"`
	// Project is set when a project file of the language lies at the
	// root or one directory below it: the workspace is (partly) a project
	// of that language, not just a holder of a few of its files (test
	// data, scripts).
	Project bool `json:"project,omitempty"`
}

func (l Language) String() string { return l.ID + " (" + strings.Join(l.Reasons, "; ") + ")" }

// Result is the outcome of a walk.
type Result struct {
	Languages []Language `json:"languages"` // sorted by id
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

// maxReasons is how much evidence is kept per language.
const maxReasons = 2

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
	found := map[string]*Language{}
	// direct are languages detected by something of their own; shared
	// markers are held back until a source file confirms the language.
	direct := map[string]bool{}
	pending := map[string][]projectFile{}
	res := &Result{}
	note := func(id, reason string) *Language {
		l := found[id]
		if l == nil {
			l = &Language{ID: id}
			found[id] = l
		}
		if len(l.Reasons) < maxReasons && !slices.Contains(l.Reasons, reason) {
			l.Reasons = append(l.Reasons, reason)
		}
		return l
	}
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
		if d.IsDir() {
			if workspace.SkipDir(name) || strings.Count(rel, "/")+1 > limits.MaxDepth {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil // symlinks, sockets, devices: never followed or read
		}
		ext := strings.ToLower(filepath.Ext(name))
		for _, r := range rules {
			if ext != "" && slices.Contains(r.exts, ext) {
				direct[r.id] = true
				note(r.id, fmt.Sprintf("%s has extension %s", rel, ext))
			}
			for _, m := range r.markers {
				if ok, _ := path.Match(m.pattern, name); !ok {
					continue
				}
				pf := projectFile{reason: fmt.Sprintf("%s is a project file", rel), shallow: strings.Count(rel, "/") <= 1}
				if m.shared {
					pending[r.id] = append(pending[r.id], pf)
					continue
				}
				direct[r.id] = true
				l := note(r.id, pf.reason)
				l.Project = l.Project || pf.shallow
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, fmt.Errorf("detect languages in %s: %w", root, err)
	}
	for id := range direct {
		for _, pf := range pending[id] {
			l := note(id, pf.reason)
			l.Project = l.Project || pf.shallow
		}
		res.Languages = append(res.Languages, *found[id])
	}
	sort.Slice(res.Languages, func(i, j int) bool { return res.Languages[i].ID < res.Languages[j].ID })
	return res, nil
}

// projectFile is a project file found by the walk.
type projectFile struct {
	reason  string
	shallow bool // at the root or one directory below
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
