// Package workspace confines paths to a workspace root. It is the one place
// that decides whether a path from tool input, a spec, a project file or a
// language server may be read or written: relative paths resolve inside the
// root, and ".." escapes, absolute paths elsewhere and symlinks (dangling
// ones included) that lead out are refused.
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

// maxLinks bounds the symlinks followed while resolving one path, as the
// kernel's ELOOP limit does for a single lookup.
const maxLinks = 40

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

// Contains reports whether the absolute, clean path abs is the root or
// lexically below it. It does not look at the file system.
func (r *Root) Contains(abs string) bool {
	return abs == r.dir || strings.HasPrefix(abs, r.dir+string(filepath.Separator))
}

// Resolve returns the absolute path of p, which is relative to the root or
// absolute inside it, for handing to a tool. The path need not exist, but
// nothing along it may leave the root: neither ".." nor a symlink, and a
// dangling symlink counts by where it points. key names the input in errors.
func (r *Root) Resolve(key, p string) (string, error) {
	abs, res, err := r.resolve(key, p)
	if err != nil {
		return "", err
	}
	if !r.Contains(abs) {
		// An absolute path through an alias of the root (a symlinked
		// parent directory): hand out the real path.
		return res.real, nil
	}
	return abs, nil
}

// ResolveRead returns the real path (symlinks resolved) of p, which must
// exist inside the root. It fails with not_found when p does not exist and
// precondition_failed when it leads outside the root.
func (r *Root) ResolveRead(key, p string) (string, error) {
	_, res, err := r.resolve(key, p)
	if err != nil {
		return "", err
	}
	if !res.exists {
		msg := fmt.Sprintf("%q does not exist in the workspace", p)
		if res.links > 0 {
			msg = fmt.Sprintf("%q is a symlink to %s, which does not exist", p, r.display(res.real))
		}
		return "", &failure.Error{Code: failure.NotFound, Field: key, Message: msg}
	}
	return res.real, nil
}

// ResolveWrite returns the real path of p for replacing (or deleting) its
// content: p must be an existing regular file inside the root, and neither
// the path as given nor the real path may be git metadata or langhost's
// own state (see checkWritable). Dangling symlinks are
// refused (writing through one would create a file wherever it points), and
// so are directories and special files. A symlink to a regular file inside
// the root resolves to that file, so the link itself stays intact.
func (r *Root) ResolveWrite(key, p string) (string, error) {
	abs, res, err := r.resolve(key, p)
	if err != nil {
		return "", err
	}
	if err := r.checkWritable(key, p, abs, res.real); err != nil {
		return "", err
	}
	if !res.exists {
		if res.links > 0 {
			return "", &failure.Error{Code: failure.Precondition, Field: key,
				Message: fmt.Sprintf("%q is a dangling symlink (to %s); langhost does not write through it", p, r.display(res.real))}
		}
		return "", &failure.Error{Code: failure.NotFound, Field: key, Message: fmt.Sprintf("%q does not exist in the workspace", p)}
	}
	// The final component was resolved, so this Lstat sees the target.
	fi, err := os.Lstat(res.real)
	if err != nil {
		return "", &failure.Error{Code: failure.Precondition, Field: key, Message: fmt.Sprintf("cannot write %q", p), Err: err}
	}
	if !fi.Mode().IsRegular() {
		return "", &failure.Error{Code: failure.Precondition, Field: key,
			Message: fmt.Sprintf("%q is not a regular file (%s); langhost only rewrites regular files", p, fi.Mode().Type())}
	}
	return res.real, nil
}

// ResolveCreate returns the real path at which p would be created (its
// existing directories resolved, the rest appended), for a writer about
// to create it or its missing directories. Nothing along it may leave the
// root or land in git metadata or langhost's state (see ResolveWrite).
// Whether something exists there already is the caller's to check.
func (r *Root) ResolveCreate(key, p string) (string, error) {
	abs, res, err := r.resolve(key, p)
	if err != nil {
		return "", err
	}
	if res.exists && res.real == r.dir {
		return "", &failure.Error{Code: failure.Precondition, Field: key, Message: fmt.Sprintf("%q is the workspace root, not a file", p)}
	}
	if err := r.checkWritable(key, p, abs, res.real); err != nil {
		return "", err
	}
	return res.real, nil
}

// resolution is where a path leads.
type resolution struct {
	real   string // symlinks resolved; for a missing path, the existing part resolved and the rest appended
	exists bool
	links  int // symlinks followed
}

// resolve cleans p against the root and follows it on disk, refusing any
// path that is, or leads, outside the root.
func (r *Root) resolve(key, p string) (string, resolution, error) {
	if p == "" {
		return "", resolution{}, &failure.Error{Code: failure.InvalidInput, Field: key, Message: "empty path"}
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", resolution{}, &failure.Error{Code: failure.InvalidInput, Field: key, Message: fmt.Sprintf("path %q contains a NUL byte", p)}
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(r.dir, p)
	}
	abs = filepath.Clean(abs)
	res, err := r.follow(abs)
	if err != nil {
		return "", resolution{}, &failure.Error{Code: failure.InvalidInput, Field: key, Message: fmt.Sprintf("cannot resolve path %q", p), Err: err}
	}
	if !r.Contains(res.real) {
		msg := fmt.Sprintf("path %q is outside the workspace %s", p, r.dir)
		if r.Contains(abs) || res.links > 0 {
			msg = fmt.Sprintf("path %q leads outside the workspace %s through a symlink", p, r.dir)
		}
		return "", resolution{}, &failure.Error{Code: failure.Precondition, Field: key, Message: msg}
	}
	return abs, res, nil
}

// follow resolves symlinks in the clean absolute path abs one component at a
// time, as the kernel does. Unlike filepath.EvalSymlinks it also follows a
// dangling symlink to where it points, so that a link to a missing file
// outside the root is seen for what it is. The part of the path that does
// not exist is appended unchanged.
func (r *Root) follow(abs string) (resolution, error) {
	var res resolution
	cur := filepath.VolumeName(abs) + string(filepath.Separator)
	rest := abs[len(cur):]
	if r.Contains(abs) {
		// The root is already resolved; start there.
		cur, rest = r.dir, strings.TrimPrefix(abs[len(r.dir):], string(filepath.Separator))
	}
	for rest != "" {
		var name string
		name, rest, _ = strings.Cut(rest, string(filepath.Separator))
		switch name {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, name)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			// Nothing below a missing directory can be a symlink.
			res.real = filepath.Join(next, rest)
			return res, nil
		}
		if err != nil {
			return res, err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			if rest != "" && !fi.IsDir() {
				return res, fmt.Errorf("%s is not a directory", next)
			}
			cur = next
			continue
		}
		res.links++
		if res.links > maxLinks {
			return res, fmt.Errorf("too many levels of symbolic links at %s", next)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return res, err
		}
		if filepath.IsAbs(target) {
			cur = filepath.VolumeName(target) + string(filepath.Separator)
			target = target[len(cur):]
		}
		if rest != "" {
			target += string(filepath.Separator) + rest
		}
		rest = target
	}
	res.real, res.exists = cur, true
	return res, nil
}

// display renders an absolute path relative to the root when inside it.
func (r *Root) display(abs string) string {
	if rel, err := filepath.Rel(r.dir, abs); err == nil && r.Contains(abs) {
		return filepath.ToSlash(rel)
	}
	return abs
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
