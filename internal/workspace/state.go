package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/langhost/langhost/internal/atomicfile"
	"github.com/langhost/langhost/internal/safefile"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// stateIgnored are the entries of .langhost/ that langhost makes for
// itself and that must never be committed by accident: transcripts hold
// what an agent read (a .env included), bench results the same, and
// records of older versions copies of source files. languages/, prompts/
// and roles/ are the project's own and stay tracked.
var stateIgnored = []string{"/runs/", "/bench/", "/transactions/"}

const stateIgnoreHeader = "# langhost keeps its own state here; these entries stay out of the repository.\n"

// maxIgnoreSize bounds the .gitignore read back: the workspace wrote it.
const maxIgnoreSize = 1 << 20

// IgnoreState makes .langhost/.gitignore ignore what langhost writes under
// .langhost/, creating .langhost/ if needed. A user's own .gitignore there
// keeps its content: missing entries are appended (the last matching
// pattern wins in git, so a "!runs/" before them does not undo them).
// Nothing is written through a symlink, or over anything but a regular
// file: that is refused with precondition_failed.
func (r *Root) IgnoreState() error {
	dir := filepath.Join(r.dir, StateDir)
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return failure.Wrap(failure.Precondition, err, "creating %s", StateDir)
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return failure.New(failure.Precondition, "%s is not a directory (a symlink?): langhost keeps no state through it", StateDir)
	}
	p := filepath.Join(dir, ".gitignore")
	name := StateDir + "/.gitignore"
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		content := stateIgnoreHeader + strings.Join(stateIgnored, "\n") + "\n"
		if err := atomicfile.WriteFile(p, []byte(content), 0o644); err != nil {
			return failure.Wrap(failure.Precondition, err, "writing %s", name)
		}
		return nil
	case err != nil:
		return failure.Wrap(failure.Precondition, err, "reading %s", name)
	case !fi.Mode().IsRegular():
		return failure.New(failure.Precondition, "%s is not a regular file (%s): langhost does not write through it; remove it, and langhost writes its own", name, fi.Mode().Type())
	}
	old, err := safefile.ReadRegular(p, maxIgnoreSize)
	if err != nil {
		return failure.Wrap(failure.Precondition, err, "reading %s", name)
	}
	// Entries count from the last negation on: one the file negates
	// later must be appended again.
	have := map[string]bool{}
	for line := range strings.Lines(string(old)) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "!") {
			clear(have)
		}
		have[line] = true
	}
	var add []string
	for _, e := range stateIgnored {
		if !have[e] {
			add = append(add, e)
		}
	}
	if len(add) == 0 {
		return nil
	}
	content := string(old)
	if content != "" && !strings.HasSuffix(content, "\n") {
		content += "\n"
	}
	content += stateIgnoreHeader + strings.Join(add, "\n") + "\n"
	if err := atomicfile.WriteFile(p, []byte(content), fi.Mode().Perm()); err != nil {
		return failure.Wrap(failure.Precondition, err, "writing %s", name)
	}
	return nil
}
