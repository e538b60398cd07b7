package gate

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/langhost/langhost/internal/safefile"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// CopyLimits bound the copy of a workspace a gate makes.
type CopyLimits struct {
	MaxBytes int64
	MaxFiles int
}

// DefaultCopyLimits are the bounds when Options.Copy is zero.
var DefaultCopyLimits = CopyLimits{MaxBytes: 512 << 20, MaxFiles: 50000}

// skipped are directories never copied: version control, langhost's own
// state, dependencies and build output, which a check rebuilds or does
// not need and which would make every gate slow.
var skipped = map[string]bool{
	".git": true, ".hg": true, ".svn": true, ".langhost": true,
	"node_modules": true, "target": true, "obj": true, "bin": true, "dist": true, "build": true,
	".venv": true, "__pycache__": true, ".mypy_cache": true, ".pytest_cache": true,
	".gradle": true, ".stack-work": true, "dist-newstyle": true, "elm-stuff": true,
}

// copyWorkspace copies the regular files and directories of root into a
// new temporary directory and returns it. Files are copied, never linked:
// a tool writing to a hard link or reflink would write the workspace.
// Symlinks are not copied: one leading out of the workspace would let the
// tool reach outside it, and one inside would let it write the
// workspace. Special files are skipped.
func copyWorkspace(ctx context.Context, root string, lim CopyLimits) (string, error) {
	if lim == (CopyLimits{}) {
		lim = DefaultCopyLimits
	}
	dir, err := os.MkdirTemp("", "langhost-gate-*")
	if err != nil {
		return "", failure.Wrap(failure.Internal, err, "gate: temporary copy of the workspace")
	}
	var bytes int64
	var count int
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dir, rel)
		switch {
		case rel == ".":
			return nil
		case d.IsDir():
			if skipped[d.Name()] {
				return filepath.SkipDir
			}
			return os.Mkdir(target, 0o700)
		case !d.Type().IsRegular():
			return nil
		}
		count++
		if count > lim.MaxFiles {
			return failure.New(failure.Precondition, "the workspace has more than %d files to copy for the gate", lim.MaxFiles)
		}
		n, err := copyFile(p, target, lim.MaxBytes-bytes, lim.MaxBytes)
		bytes += n
		return err
	})
	if err != nil {
		removeAll(dir)
		if failure.CodeOf(err) == failure.Internal {
			err = failure.Wrap(failure.Internal, err, "gate: copying the workspace")
		}
		return "", err
	}
	return dir, nil
}

// copyFile copies one regular file with its permission bits, failing when
// it holds more than budget bytes.
func copyFile(from, to string, budget, max int64) (int64, error) {
	in, err := safefile.Open(from)
	if err != nil {
		return 0, nil // replaced by something else meanwhile: not a source file
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return 0, err
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm()|0o600)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, io.LimitReader(in, budget+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > budget {
		err = failure.New(failure.Precondition, "the workspace holds more than %d bytes to copy for the gate (at %s)", max, filepath.Base(from))
	}
	return n, err
}

// writeOverlay puts content at the workspace-relative path rel of the copy.
func writeOverlay(dir, rel string, content []byte) error {
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return failure.Wrap(failure.Internal, err, "gate: writing %s into the copy", rel)
	}
	// Remove first: the copy may hold no file there, or a read-only one.
	os.Remove(p)
	if err := os.WriteFile(p, content, 0o600); err != nil {
		return failure.Wrap(failure.Internal, err, "gate: writing %s into the copy", rel)
	}
	return nil
}

// removeAll removes the copy, also what a tool left read-only (Go's
// module cache, for one, makes its directories read-only).
func removeAll(dir string) error {
	if os.RemoveAll(dir) == nil {
		return nil
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("gate: removing the copy %s: %w", dir, err)
	}
	return nil
}
