package txnlog

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/langhost/langhost/internal/atomicfile"
	"github.com/langhost/langhost/internal/safefile"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Change is one file of Write.
type Change struct {
	Path   string // absolute path inside the workspace (real for an existing file)
	Name   string // how messages name it, workspace-relative
	Exists bool   // the file exists and holds Old; false: Write creates it
	Old    []byte
	New    []byte
	Delete bool // remove the file (which must hold Old) instead of writing New
}

// Write applies changes all or nothing, as far as the file system allows:
// new files are created first (never over a file that appeared
// meanwhile), then existing files are replaced together with
// internal/atomicfile (each must still hold Old and be the regular file
// inside the workspace it was), then files are deleted. When replacing
// fails, the files created are removed again. rename is os.Rename except
// in tests that inject a failure.
//
// Errors are *failure.Error: precondition_failed when a file is not as
// expected (nothing was written), workspace_apply_failed when writing
// failed (what was written was put back).
func Write(ws *workspace.Root, changes []Change, rename func(from, to string) error) error {
	// Every writer of edits comes through here, undo included: check them
	// all against the workspace's write rules (inside it, not git
	// metadata, not .langhost) before the first byte is written.
	for _, c := range changes {
		if err := checkWritable(ws, c); err != nil {
			return err
		}
	}
	var created []Change
	undoCreated := func() {
		for _, c := range created {
			removeIfHolds(c.Path, c.New)
		}
	}
	var replace []atomicfile.Replacement
	var remove []Change
	for _, c := range changes {
		switch {
		case c.Delete:
			remove = append(remove, c)
		case c.Exists:
			replace = append(replace, atomicfile.Replacement{Path: c.Path, Name: c.Name, Old: c.Old, New: c.New})
		default:
			if err := create(ws, c); err != nil {
				undoCreated()
				return err
			}
			created = append(created, c)
		}
	}
	err := atomicfile.ReplaceAll(replace, atomicfile.Options{Rename: rename, Check: func(r atomicfile.Replacement) error {
		real, err := ws.ResolveWrite("", r.Path)
		if err == nil && real != r.Path {
			err = fmt.Errorf("it now leads to %s", real)
		}
		if err != nil {
			return failure.Wrap(failure.Precondition, err, "%s changed on disk since the edit was computed; nothing was written", r.Name)
		}
		return nil
	}})
	if err != nil {
		undoCreated()
		if failure.CodeOf(err) == failure.Internal {
			return failure.Wrap(failure.WorkspaceApplyFailed, err, "applying the edit")
		}
		return err
	}
	for _, c := range remove {
		if err := checkWritable(ws, c); err != nil {
			return failure.Wrap(failure.WorkspaceApplyFailed, err, "deleting %s (the other files were written)", c.Name)
		}
		cur, err := safefile.ReadRegular(c.Path, maxBeforeSize)
		if err == nil && !bytes.Equal(cur, c.Old) {
			err = errors.New("it changed on disk")
		}
		if err == nil {
			err = os.Remove(c.Path)
		}
		if err != nil {
			return failure.Wrap(failure.WorkspaceApplyFailed, err, "deleting %s (the other files were written)", c.Name)
		}
	}
	return nil
}

// checkWritable checks that c may be written where it says: an existing
// file is the regular file at c.Path (ResolveWrite); a file to create has
// a free place at c.Path (ResolveCreate).
func checkWritable(ws *workspace.Root, c Change) error {
	resolve := ws.ResolveCreate
	if c.Exists || c.Delete {
		resolve = ws.ResolveWrite
	}
	real, err := resolve("", c.Path)
	if err == nil && real != c.Path {
		err = fmt.Errorf("it leads to %s", real)
	}
	if err != nil {
		code := failure.Precondition
		if fe := (*failure.Error)(nil); errors.As(err, &fe) {
			code = fe.Code
		}
		return failure.Wrap(code, err, "%s; nothing was written", c.Name)
	}
	return nil
}

// create writes a new file without ever replacing one: the content is
// staged beside it and hard-linked into place, which fails if the name
// exists (a file, a directory or a symlink, dangling or not). Missing
// parent directories inside the workspace are made.
func create(ws *workspace.Root, c Change) error {
	p, err := ws.ResolveCreate("", c.Path)
	if err != nil {
		return failure.Wrap(failure.CodeOf(err), err, "creating %s; nothing was written", c.Name)
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return failure.Wrap(failure.Precondition, err, "creating %s; nothing was written", c.Name)
	}
	// The directories made may have been swapped for symlinks since.
	if again, err := ws.ResolveCreate("", c.Path); err != nil || again != p {
		return failure.New(failure.Precondition, "%s: its directory changed while it was created; nothing was written", c.Name)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(p)+".langhost-new-*")
	if err != nil {
		return failure.Wrap(failure.Precondition, err, "creating %s; nothing was written", c.Name)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, werr := f.Write(c.New)
	if err := errors.Join(werr, f.Chmod(0o644), f.Sync(), f.Close()); err != nil {
		return failure.Wrap(failure.WorkspaceApplyFailed, err, "creating %s; nothing was written", c.Name)
	}
	if err := os.Link(tmp, p); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return failure.New(failure.Precondition, "%s was created on disk since the edit was computed; nothing was written", c.Name)
		}
		return failure.Wrap(failure.WorkspaceApplyFailed, err, "creating %s; nothing was written", c.Name)
	}
	return nil
}

// removeIfHolds removes a file Write created, unless it was changed since.
func removeIfHolds(p string, content []byte) {
	if cur, err := safefile.ReadRegular(p, int64(len(content))+1); err == nil && bytes.Equal(cur, content) {
		os.Remove(p)
	}
}
