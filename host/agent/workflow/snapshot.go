package workflow

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/langhost/langhost/internal/unidiff"
	"github.com/langhost/langhost/internal/workspace"
)

// Bounds of a snapshot: the reviewer needs the diff of source files, not
// of a vendored tree or a build output.
const (
	maxSnapshotFile  = 1 << 20
	maxSnapshotTotal = 64 << 20
	maxSnapshotFiles = 20000
	maxDiffBytes     = 48 << 10
)

// snapshot is the content of a workspace's source files at one time, by
// workspace-relative path, so that the diff of a run covers exactly the
// files the run changed.
type snapshot map[string]string

// take reads the workspace's regular files, skipping the directories no
// tool looks into (.git, node_modules, ...), symlinks and large files.
func take(ctx context.Context, ws *workspace.Root) (snapshot, error) {
	s := snapshot{}
	root := ws.Dir()
	total := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable parts are not part of the diff
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d.IsDir() {
			if p != root && workspace.SkipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || len(s) >= maxSnapshotFiles {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() > maxSnapshotFile || total+int(info.Size()) > maxSnapshotTotal {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		total += len(data)
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return nil
		}
		s[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("snapshot of the workspace: %w", err)
	}
	return s, nil
}

// diff returns the unified diff from s to now and the changed paths,
// sorted; the diff is cut at maxDiffBytes, saying so.
func (s snapshot) diff(now snapshot) (string, []string) {
	paths := slices.Sorted(maps.Keys(s))
	for p := range now {
		if _, ok := s[p]; !ok {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	var b strings.Builder
	var changed []string
	for _, p := range paths {
		before, after := s[p], now[p]
		if before == after {
			continue
		}
		changed = append(changed, p)
		from, to := "a/"+p, "b/"+p
		if _, ok := s[p]; !ok {
			from = "/dev/null"
		}
		if _, ok := now[p]; !ok {
			to = "/dev/null"
		}
		b.WriteString(unidiff.Diff(from, to, before, after))
	}
	d := b.String()
	if len(d) > maxDiffBytes {
		d = d[:maxDiffBytes] + fmt.Sprintf("\n... diff cut at %d bytes; read the files for the rest\n", maxDiffBytes)
	}
	return d, changed
}
