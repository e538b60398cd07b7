// Package workspace confines tool paths to a workspace root: relative paths
// resolve inside it, and ".." escapes or symlinks pointing out are refused.
package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Root is a workspace directory.
type Root struct {
	dir string // absolute, symlinks resolved
}

// New returns the workspace rooted at dir, which must exist.
func New(dir string) (*Root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, failure.Wrap(failure.NotFound, err, "workspace %s", dir)
	}
	st, err := os.Stat(real)
	if err != nil {
		return nil, failure.Wrap(failure.NotFound, err, "workspace %s", dir)
	}
	if !st.IsDir() {
		return nil, failure.New(failure.InvalidInput, "workspace %s is not a directory", dir)
	}
	return &Root{dir: real}, nil
}

// Dir is the absolute root directory.
func (r *Root) Dir() string { return r.dir }

// Resolve returns the absolute path of p, which is relative to the root or
// absolute inside it. The path need not exist, but the part of it that does
// must not leave the root through a symlink. key names the input in errors.
func (r *Root) Resolve(key, p string) (string, error) {
	if p == "" {
		return "", &failure.Error{Code: failure.InvalidInput, Field: key, Message: "empty path"}
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(r.dir, p)
	}
	abs = filepath.Clean(abs)
	if !r.contains(abs) {
		return "", &failure.Error{Code: failure.Precondition, Field: key,
			Message: fmt.Sprintf("path %q is outside the workspace %s", p, r.dir)}
	}
	real, err := evalExisting(abs)
	if err != nil {
		return "", &failure.Error{Code: failure.InvalidInput, Field: key, Message: "cannot resolve path", Err: err}
	}
	if !r.contains(real) {
		return "", &failure.Error{Code: failure.Precondition, Field: key,
			Message: fmt.Sprintf("path %q leads outside the workspace %s through a symlink", p, r.dir)}
	}
	return abs, nil
}

// Rel returns abs relative to dir for passing to a tool whose working
// directory is dir. It keeps a "./" prefix so that tools never mistake the
// result for a package pattern or flag ("..." means every package to go).
func Rel(dir, abs string) string {
	rel, err := filepath.Rel(dir, abs)
	if err != nil {
		return abs
	}
	if rel == "." || strings.HasPrefix(rel, "..") && (len(rel) == 2 || rel[2] == filepath.Separator) {
		return rel
	}
	return "." + string(filepath.Separator) + rel
}

func (r *Root) contains(abs string) bool {
	return abs == r.dir || strings.HasPrefix(abs, r.dir+string(filepath.Separator))
}

// evalExisting resolves symlinks in the longest existing prefix of abs and
// appends the rest unchanged.
func evalExisting(abs string) (string, error) {
	rest := ""
	for p := abs; ; {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}
