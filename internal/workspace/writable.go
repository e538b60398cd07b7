package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/langhost/langhost/internal/safefile"
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
		if !r.Contains(q) {
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
	// Git's own test for a repository (setup.c, is_git_directory) is a
	// HEAD beside an objects/ and a refs/, which may be those of the
	// directory a commondir file names; a .git file ("gitdir: DIR") and a
	// bare repository both lead to such a directory, whatever its name. A
	// write may neither go into one nor complete one, file by file: not in
	// the directory with the HEAD, nor in the one with objects/ and refs/.
	dir := r.dir
	var commons []string // directories along the path that hold objects/ and refs/
	rel := strings.TrimPrefix(real[len(r.dir):], string(filepath.Separator))
	for _, c := range strings.Split(rel, string(filepath.Separator)) {
		if c == "" {
			break
		}
		if why := gitDirWith(dir, c); why != "" {
			return &failure.Error{Code: failure.Precondition, Field: key,
				Message: fmt.Sprintf("%q is in %s, which git takes for a repository (%s): git metadata: writing it can make git run code; langhost never writes there", p, r.displayDir(dir), why)}
		}
		if hasEntry(dir, c, "objects") && hasEntry(dir, c, "refs") {
			commons = append(commons, dir)
		}
		dir = filepath.Join(dir, c)
		if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
			break // the rest is created by the write, empty but for it
		}
	}
	if len(commons) > 0 {
		g, c, err := r.commonDirUser(commons)
		if err != nil {
			return &failure.Error{Code: failure.Precondition, Field: key, Err: err,
				Message: fmt.Sprintf("%q is in %s, which holds objects/ and refs/ as a git repository's common directory does, and the workspace could not be searched for a commondir file naming it", p, r.displayDir(commons[0]))}
		}
		if g != "" {
			return &failure.Error{Code: failure.Precondition, Field: key,
				Message: fmt.Sprintf("%q is in %s, which %s names as the common directory (objects/, refs/, config) of the repository git takes %s for: git metadata: writing it can make git run code; langhost never writes there", p, r.displayDir(c), r.display(filepath.Join(g, commonDirFile)), r.displayDir(g))}
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

// commonDirFile is the file of a linked worktree's git directory that
// names the directory holding the repository's objects/, refs/ and config.
const commonDirFile = "commondir"

// gitDirWith says why dir is, or would be once its entry name is written,
// a git directory, or returns "". Git's test is a HEAD and an objects/
// and a refs/, those of the directory its commondir file names if it has
// one. A HEAD beside a commondir counts whatever the commondir says: the
// directory it names is checked when written (see commonDirUser), and the
// commondir can be rewritten to name another.
func gitDirWith(dir, name string) string {
	if !hasHEAD(dir, name) {
		return ""
	}
	if strings.EqualFold(name, commonDirFile) || exists(filepath.Join(dir, commonDirFile)) {
		return "HEAD, and a commondir file naming where its objects/ and refs/ are"
	}
	if hasEntry(dir, name, "objects") && hasEntry(dir, name, "refs") {
		return "HEAD, objects/, refs/"
	}
	return ""
}

// hasHEAD reports whether dir holds a HEAD (a file or a symlink: git reads
// both), or will once name is written.
func hasHEAD(dir, name string) bool {
	if strings.EqualFold(name, "HEAD") {
		return true
	}
	fi, err := os.Lstat(filepath.Join(dir, "HEAD"))
	return err == nil && !fi.IsDir()
}

// hasEntry reports whether dir holds entry as git would accept it for
// objects/ or refs/ (access(X_OK), following symlinks: a directory or an
// executable file), or will once name is written.
func hasEntry(dir, name, entry string) bool {
	if strings.EqualFold(name, entry) {
		return true
	}
	fi, err := os.Stat(filepath.Join(dir, entry))
	return err == nil && (fi.IsDir() || fi.Mode()&0o111 != 0)
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// maxCommonDirScan bounds the entries commonDirUser visits; a workspace
// larger than that is not searched and the write is refused.
const maxCommonDirScan = 1 << 20

// commonDirUser looks through the workspace for a git directory (a HEAD
// beside a commondir file) whose commondir names one of dirs (real paths),
// as git resolves it: relative to that directory, symlinks resolved. It
// returns that directory and the one of dirs it names, or "" for none. It
// runs only for writes into a directory holding objects/ and refs/, which
// almost no project has outside git metadata. .git directories are not
// searched: they are never written.
func (r *Root) commonDirUser(dirs []string) (gitDir, common string, err error) {
	n := 0
	errStop := errors.New("stop")
	err = filepath.WalkDir(r.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: git could not read it either
		}
		if n++; n > maxCommonDirScan {
			return fmt.Errorf("more than %d entries", maxCommonDirScan)
		}
		if d.IsDir() {
			if p != r.dir && isName(d.Name(), GitDir) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() != commonDirFile {
			return nil
		}
		g := filepath.Dir(p)
		if !hasHEAD(g, "") {
			return nil
		}
		data, err := safefile.ReadRegular(p, 4<<10)
		if err != nil {
			return nil // git could not read it either
		}
		target := strings.TrimRight(string(data), "\r\n") // git trims only these
		if !filepath.IsAbs(target) {
			// Not Join: git resolves ".." after symlinks, as EvalSymlinks
			// does on the uncleaned path.
			target = g + string(filepath.Separator) + target
		}
		real, err := filepath.EvalSymlinks(target)
		if err != nil {
			return nil
		}
		for _, c := range dirs {
			if real == c {
				gitDir, common = g, c
				return errStop
			}
		}
		return nil
	})
	if errors.Is(err, errStop) {
		err = nil
	}
	return gitDir, common, err
}

// displayDir renders a directory for messages: relative to the root, or
// "the workspace root".
func (r *Root) displayDir(dir string) string {
	if dir == r.dir {
		return "the workspace root"
	}
	return r.display(dir) + "/"
}
