package dotnet

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/langhost/langhost/internal/safefile"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// tree is the workspace a solution or project is read from. Solutions and
// project files are untrusted: their project references, imports and
// Compile globs may name any path, or one that leads out through a
// symlink. Everything is read through tree, which never reads outside the
// root (internal/workspace decides) and says so instead.
type tree struct {
	ws    *workspace.Root
	root  string // ws.Dir() with forward slashes
	given string // the root as the caller spelled it, absolute, slashed
}

func newTree(root string) (*tree, error) {
	given, err := absRoot(root)
	if err != nil {
		return nil, err
	}
	ws, err := workspace.New(root)
	if err != nil {
		if failure.CodeOf(err) == failure.NotFound {
			return nil, failure.Wrap(failure.NotFound, err, "workspace root %s does not exist", given)
		}
		return nil, err
	}
	return &tree{ws: ws, root: filepath.ToSlash(ws.Dir()), given: given}, nil
}

// abs turns p (absolute, or relative to the root) into a clean absolute
// slash path, spelled under the resolved root when it was given under the
// root as the caller spelled it.
func (t *tree) abs(p string) string {
	p = filepath.ToSlash(p)
	if !filepath.IsAbs(filepath.FromSlash(p)) {
		p = t.root + "/" + p
	}
	p = filepath.ToSlash(filepath.Clean(filepath.FromSlash(p)))
	if t.given != t.root && (p == t.given || strings.HasPrefix(p, t.given+"/")) {
		p = t.root + p[len(t.given):]
	}
	return p
}

// rel is p relative to the root, for results and messages.
func (t *tree) rel(p string) string { return relSlash(t.root, p) }

// kind is what a path is, as far as reading it goes.
type kind int

const (
	kindMissing kind = iota
	kindFile
	kindDir
	kindOutside // it leads outside the workspace, directly or through a symlink
)

// lookup says what the absolute slash path p is, without reading anything
// outside the workspace.
func (t *tree) lookup(p string) kind {
	real, err := t.ws.ResolveRead("", filepath.FromSlash(p))
	if err != nil {
		if failure.CodeOf(err) == failure.Precondition {
			return kindOutside
		}
		return kindMissing
	}
	st, err := os.Stat(real)
	switch {
	case err != nil:
		return kindMissing
	case st.IsDir():
		return kindDir
	case st.Mode().IsRegular():
		return kindFile
	}
	return kindMissing // devices, sockets, FIFOs: nothing to parse
}

// present reports whether something (a file, or a symlink even if
// dangling) is at p. It only looks, so it may look outside the workspace.
func (t *tree) present(p string) bool {
	_, err := os.Lstat(filepath.FromSlash(p))
	return err == nil
}

// isFile reports whether p is a regular file inside the workspace.
func (t *tree) isFile(p string) bool { return t.lookup(p) == kindFile }

// maxFileSize bounds what is read from one project, solution or source
// file, so that a hostile workspace cannot make langhost read a huge file
// (or a device) into memory.
const maxFileSize = 16 << 20

// readFile reads the absolute slash path p, which must be a regular file
// inside the workspace. display names it in errors.
func (t *tree) readFile(p, display string) ([]byte, error) {
	real, err := t.ws.ResolveRead("", filepath.FromSlash(p))
	if err != nil {
		switch failure.CodeOf(err) {
		case failure.NotFound:
			return nil, failure.Wrap(failure.NotFound, err, "%s does not exist", display)
		case failure.Precondition:
			return nil, failure.Wrap(failure.Precondition, err, "%s is not read", display)
		}
		return nil, failure.Wrap(failure.InvalidInput, err, "read %s", display)
	}
	data, err := safefile.ReadRegular(real, maxFileSize)
	var nr *safefile.NotRegularError
	var tl *safefile.TooLargeError
	switch {
	case err == nil:
	case errors.As(err, &nr):
		return nil, failure.New(failure.InvalidInput, "%s is not a regular file: it is %s", display, nr.Kind())
	case errors.As(err, &tl):
		return nil, failure.New(failure.InvalidInput, "%s is larger than the %d bytes this reader accepts", display, maxFileSize)
	case errors.Is(err, fs.ErrNotExist):
		return nil, failure.Wrap(failure.NotFound, err, "%s does not exist", display)
	default:
		return nil, failure.Wrap(failure.Internal, err, "read %s", display)
	}
	return data, nil
}
