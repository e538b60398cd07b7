package bench

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/langhost/langhost/internal/safefile"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Bounds of a fixture copy: a fixture is a small repository.
const (
	maxFixtureFiles = 10000
	maxFixtureBytes = 64 << 20
)

// copyFixture copies the regular files and directories under src into
// dst. A symlink or any other special file is refused, naming it: a
// fixture that links out would let a run read or write beyond its copy.
func copyFixture(src, dst string) error {
	st, err := os.Stat(src)
	if err != nil {
		return failure.Wrap(failure.NotFound, err, "fixture")
	}
	if !st.IsDir() {
		return failure.New(failure.InvalidInput, "fixture %s is not a directory", src)
	}
	var files int
	var total int64
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return failure.Wrap(failure.InvalidInput, err, "fixture")
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case !d.Type().IsRegular():
			return failure.New(failure.InvalidInput, "fixture %s: %s is not a regular file or directory (%s); fixtures hold plain files only", src, filepath.ToSlash(rel), d.Type())
		}
		files++
		if files > maxFixtureFiles {
			return failure.New(failure.InvalidInput, "fixture %s has more than %d files", src, maxFixtureFiles)
		}
		data, err := safefile.ReadRegular(p, maxFixtureBytes-total)
		if err != nil {
			return failure.Wrap(failure.InvalidInput, err, "fixture %s: %s", src, filepath.ToSlash(rel))
		}
		total += int64(len(data))
		info, err := d.Info()
		if err != nil {
			return fmt.Errorf("fixture %s: %w", rel, err)
		}
		return os.WriteFile(target, data, info.Mode().Perm()|0o200)
	})
}
