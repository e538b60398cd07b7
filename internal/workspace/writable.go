package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Names of the directories no write on an agent's behalf may touch, at any
// depth: git metadata (hooks, config's core.fsmonitor or core.pager make
// git run code) and langhost's own state (records, transcripts, the
// workspace's specs and roles). langhost's own state writers use their own
// paths, never ResolveWrite or ResolveCreate.
const (
	GitDir   = ".git"
	StateDir = ".langhost"
)

// checkWritable refuses a write at p, given as abs (lexical, cleaned) and
// leading to real (symlinks resolved), when either path has a component
// named .git or .langhost, or when the write lands in, or completes, a
// directory that git takes for a repository. Both paths count: git finds
// a repository by the name it is reached through as well as by what it is.
func (r *Root) checkWritable(key, p, abs, real string) error {
	for _, q := range []string{abs, real} {
		if !r.contains(q) {
			continue
		}
		for _, c := range strings.Split(strings.TrimPrefix(q[len(r.dir):], string(filepath.Separator)), string(filepath.Separator)) {
			var why string
			switch {
			case isName(c, GitDir):
				why = "git metadata: writing it can make git run code (hooks, core.fsmonitor); langhost never writes there"
			case isName(c, StateDir):
				why = "langhost's own state (.langhost/): tools do not write there"
			default:
				continue
			}
			msg := fmt.Sprintf("%q is %s", p, why)
			if q == real && real != abs {
				msg = fmt.Sprintf("%q leads to %s, which is %s", p, r.display(real), why)
			}
			return &failure.Error{Code: failure.Precondition, Field: key, Message: msg}
		}
	}
	// A directory holding HEAD, objects/ and refs/ is a repository to git
	// whatever its name (a bare one, or the target of a gitdir: file); a
	// write may neither go into one nor make one, file by file.
	dir := r.dir
	rel := strings.TrimPrefix(real[len(r.dir):], string(filepath.Separator))
	for _, c := range strings.Split(rel, string(filepath.Separator)) {
		if c == "" {
			break
		}
		if gitDirWith(dir, c) {
			return &failure.Error{Code: failure.Precondition, Field: key,
				Message: fmt.Sprintf("%q is in %s, which git takes for a repository (HEAD, objects/, refs/): git metadata: writing it can make git run code; langhost never writes there", p, r.displayDir(dir))}
		}
		dir = filepath.Join(dir, c)
		if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
			break // the rest is created by the write, empty but for it
		}
	}
	return nil
}

// isName reports whether the path component c names the directory name,
// the way a case-insensitive file system (macOS, Windows) would read it:
// case and, for Windows, trailing dots and spaces do not count.
func isName(c, name string) bool {
	return strings.EqualFold(strings.TrimRight(c, ". "), name)
}

// gitDirWith reports whether dir is, or would be once its entry name is
// written, a git directory: git's own test is a HEAD, an objects/ and a
// refs/.
func gitDirWith(dir, name string) bool {
	has := func(entry string, isDir bool) bool {
		if strings.EqualFold(name, entry) {
			return true
		}
		fi, err := os.Stat(filepath.Join(dir, entry)) // git follows symlinks here
		return err == nil && fi.IsDir() == isDir
	}
	return has("HEAD", false) && has("objects", true) && has("refs", true)
}

// displayDir renders a directory for messages: relative to the root, or
// "the workspace root".
func (r *Root) displayDir(dir string) string {
	if dir == r.dir {
		return "the workspace root"
	}
	return r.display(dir) + "/"
}
