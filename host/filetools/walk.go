package filetools

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/langhost/langhost/internal/gitignore"
	"github.com/langhost/langhost/internal/safefile"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Bounds of a walk.
const (
	maxWalkEntries = 200000  // directory entries looked at
	maxIgnoreSize  = 1 << 20 // a larger .gitignore is not read
)

// walker lists the regular files below a directory of the workspace,
// skipping .git and .langhost always and what .gitignore files ignore
// unless told not to. Symlinks are not followed, so no walk leaves the
// workspace or loops.
type walker struct {
	root           string // workspace root
	includeIgnored bool
	ignore         gitignore.Matcher
	entries        int
	truncated      bool // stopped at maxWalkEntries
	ignoreFull     bool // .gitignore patterns were left out (gitignore.MaxPatterns)
}

// ignoreNote says, when .gitignore patterns were left out, that the
// result may hold files git ignores; "" otherwise.
func (w *walker) ignoreNote() string {
	if !w.ignoreFull && w.ignore.Dropped() == 0 {
		return ""
	}
	return fmt.Sprintf("the .gitignore files hold more than the %d patterns (%d KiB) langhost applies; the rest were not applied, so files they ignore may be listed",
		gitignore.MaxPatterns, gitignore.MaxPatternBytes>>10)
}

// walk calls visit with the workspace-relative path of every file below
// rel (a directory or a file) until visit returns false.
func (ts *tools) walk(ctx context.Context, key, p string, includeIgnored bool, visit func(rel, abs string) bool) (*walker, error) {
	rel, err := relPath(key, p)
	if err != nil {
		return nil, err
	}
	abs, err := ts.opts.Workspace.ResolveRead(key, rel)
	if err != nil {
		return nil, err
	}
	w := &walker{root: ts.opts.Workspace.Dir(), includeIgnored: includeIgnored}
	if rel != "." && private(rel) {
		return w, nil
	}
	if !includeIgnored {
		w.loadIgnores(rel)
	}
	// The real path may differ from rel when rel runs through a symlink
	// inside the workspace: name files by the real path.
	start, err := filepath.Rel(w.root, abs)
	if err != nil {
		return nil, failure.Wrap(failure.Internal, err, "walk %s", rel)
	}
	start = filepath.ToSlash(start)
	err = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == abs {
				return err
			}
			return nil // unreadable below: skip it
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		w.entries++
		if w.entries > maxWalkEntries {
			w.truncated = true
			return filepath.SkipAll
		}
		r := path.Join(start, filepath.ToSlash(strings.TrimPrefix(p, abs)))
		if d.IsDir() {
			if p != abs && (d.Name() == ".git" || d.Name() == ".langhost" || w.ignored(r, true)) {
				return filepath.SkipDir
			}
			if !includeIgnored {
				w.loadIgnore(r, p)
			}
			return nil
		}
		if !d.Type().IsRegular() || w.ignored(r, false) {
			return nil
		}
		if !visit(r, p) {
			return filepath.SkipAll
		}
		return nil
	})
	if err != nil {
		return nil, failure.Wrap(failure.CodeOf(err), err, "walking %s", rel)
	}
	return w, nil
}

func (w *walker) ignored(rel string, isDir bool) bool {
	return !w.includeIgnored && w.ignore.Match(rel, isDir)
}

// loadIgnores reads .git/info/exclude and the .gitignore files of the
// directories above rel, which apply below it too.
func (w *walker) loadIgnores(rel string) {
	if b, err := safefile.ReadRegular(filepath.Join(w.root, ".git", "info", "exclude"), maxIgnoreSize); err == nil {
		w.ignore.Add("", b)
	}
	dir := path.Dir(rel)
	if rel == "." {
		return
	}
	var chain []string
	for d := dir; d != "."; d = path.Dir(d) {
		chain = append(chain, d)
	}
	w.loadIgnore("", w.root)
	for i := len(chain) - 1; i >= 0; i-- {
		w.loadIgnore(chain[i], filepath.Join(w.root, filepath.FromSlash(chain[i])))
	}
}

// loadIgnore adds the .gitignore of the directory rel (at abs), if any.
func (w *walker) loadIgnore(rel, abs string) {
	if rel == "." {
		rel = ""
	}
	p := filepath.Join(abs, ".gitignore")
	if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
		return // a symlinked .gitignore could point anywhere
	}
	if w.ignore.Full() {
		w.ignoreFull = true // not even read: it would only be dropped
		return
	}
	if b, err := safefile.ReadRegular(p, maxIgnoreSize); err == nil {
		w.ignore.Add(rel, b)
	}
}
