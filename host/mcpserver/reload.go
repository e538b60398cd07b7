package mcpserver

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/internal/safefile"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// DefaultDebounce is how long Watch waits after the last change before
// reloading: editors write a file in several steps.
const DefaultDebounce = 300 * time.Millisecond

// Reload loads the host again and serves its tools: clients are sent
// notifications/tools/list_changed when the tool set changed. A spec
// file that no longer parses keeps its last good version (logged with
// the file and line). On error the served tools stay as they were.
func (srv *Server) Reload(ctx context.Context) (changed bool, err error) {
	if srv.load == nil {
		return false, failure.New(failure.Precondition, "this server was not opened with a loader; it cannot reload")
	}
	srv.reloadMu.Lock()
	defer srv.reloadMu.Unlock()
	h, err := srv.load(ctx, srv.good.wrap)
	if err != nil {
		return false, err
	}
	g, err := srv.generation(h)
	if err != nil {
		_ = h.Close()
		return false, err
	}
	for _, p := range h.Specs.Problems {
		srv.log.Warn("spec skipped", "problem", p.Error())
	}
	changed = srv.swap(g)
	srv.log.Info("reloaded", "tools", len(g.defs), "changed", changed)
	if srv.prewarm.Load() {
		// The new host has its own plugins: warm them as at start.
		srv.warm(g)
	}
	return changed, nil
}

// WatchPaths returns what Watch watches for h: the spec directories
// other than the embedded one, and external plugin executables.
func WatchPaths(h *host.Host) []string {
	var out []string
	sources, err := host.Sources(h.Config, h.Workspace)
	if err == nil {
		for _, src := range sources {
			if src.Name != "embedded" && src.Label != "" {
				out = append(out, src.Label)
			}
		}
	}
	for _, f := range h.Specs.Languages {
		if f.Semantic == nil || f.Semantic.Plugin == "" {
			continue
		}
		p := f.Semantic.Plugin
		if !strings.ContainsRune(p, filepath.Separator) {
			if lp, err := exec.LookPath(p); err == nil {
				p = lp
			}
		}
		if abs, err := filepath.Abs(p); err == nil {
			out = append(out, abs)
		}
	}
	return out
}

// Watch starts watching paths and returns: until ctx ends, a change to a
// spec file in the watched directories or to a watched plugin executable
// reloads the tools, debounced. Paths that do not exist yet are watched
// from their parent directory.
func (srv *Server) Watch(ctx context.Context, paths []string, debounce time.Duration) error {
	if debounce <= 0 {
		debounce = DefaultDebounce
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch spec files: %w", err)
	}
	watchedDirs := map[string]bool{}
	watchedFiles := map[string]bool{}
	for _, p := range paths {
		st, err := os.Stat(p)
		switch {
		case err == nil && st.IsDir():
			watchedDirs[filepath.Clean(p)] = true
			err = w.Add(p)
		default:
			// A file (plugin) or a missing directory: watch the parent,
			// which also sees the file replaced or the directory created.
			watchedFiles[filepath.Clean(p)] = true
			err = w.Add(filepath.Dir(p))
		}
		if err != nil {
			srv.log.Debug("not watched", "path", p, "error", err)
		}
	}
	go func() {
		defer w.Close()
		srv.watch(ctx, w, watchedDirs, watchedFiles, debounce)
	}()
	return nil
}

func (srv *Server) watch(ctx context.Context, w *fsnotify.Watcher, watchedDirs, watchedFiles map[string]bool, debounce time.Duration) {
	relevant := func(name string) bool {
		name = filepath.Clean(name)
		if watchedFiles[name] {
			return true
		}
		base := filepath.Base(name)
		return watchedDirs[filepath.Dir(name)] && (strings.HasSuffix(base, ".yaml") || strings.HasSuffix(base, ".yml"))
	}
	var timer *time.Timer
	fire := make(chan struct{}, 1)
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if ev.Op == fsnotify.Chmod || !relevant(ev.Name) {
				continue
			}
			if watchedFiles[filepath.Clean(ev.Name)] && ev.Has(fsnotify.Create) {
				if st, err := os.Stat(ev.Name); err == nil && st.IsDir() {
					_ = w.Add(ev.Name) // a spec directory appeared
					watchedDirs[filepath.Clean(ev.Name)] = true
				}
			}
			srv.log.Debug("spec change", "file", ev.Name, "op", ev.Op.String())
			if timer == nil {
				timer = time.AfterFunc(debounce, func() { fire <- struct{}{} })
			} else {
				timer.Reset(debounce)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			srv.log.Warn("watching spec files", "error", err)
		case <-fire:
			if _, err := srv.Reload(ctx); err != nil && ctx.Err() == nil {
				srv.log.Error("reload failed; the served tools are unchanged", "error", err)
			}
		}
	}
}

// lastGood remembers the content of every spec file that parsed, and
// serves it in place of a later version that does not: a spec being
// edited must not take its language's tools away from a running client.
type lastGood struct {
	mu   sync.Mutex
	good map[string][]byte // by display path
	log  hclog.Logger
}

func newLastGood(log hclog.Logger) *lastGood {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	return &lastGood{good: map[string][]byte{}, log: log}
}

// wrap puts a checking layer on the directory sources (the embedded specs
// cannot change).
func (l *lastGood) wrap(sources []spec.Source) []spec.Source {
	out := make([]spec.Source, len(sources))
	for i, src := range sources {
		out[i] = src
		if src.Name != "embedded" && src.FS != nil {
			out[i].FS = &goodFS{FS: src.FS, label: src.Label, l: l}
		}
	}
	return out
}

// goodFS is a spec source that serves the last good version of a file
// that no longer parses.
type goodFS struct {
	fs.FS
	label string
	l     *lastGood
}

// maxSpecRead bounds the check's read; the loader applies its own limit.
const maxSpecRead = 16 << 20

func (g *goodFS) Open(name string) (fs.File, error) {
	if !strings.HasSuffix(name, ".yaml") && !strings.HasSuffix(name, ".yml") {
		return g.FS.Open(name)
	}
	display := name
	if g.label != "" {
		display = filepath.Join(g.label, name)
	}
	data, err := safefile.ReadFS(g.FS, name, maxSpecRead)
	if err != nil {
		// Not a regular file, too large, unreadable: the loader reads it
		// again and reports it with its own limits.
		return g.FS.Open(name)
	}
	_, perr := spec.Parse(display, data)
	g.l.mu.Lock()
	defer g.l.mu.Unlock()
	if perr == nil {
		g.l.good[display] = data
		return memFile(name, data), nil
	}
	if old, ok := g.l.good[display]; ok {
		g.l.log.Warn("spec broken; keeping its last good version", "problem", perr.Error())
		return memFile(name, old), nil
	}
	return memFile(name, data), nil
}

// Stat answers from the content Open will give, so that size checks agree.
func (g *goodFS) Stat(name string) (fs.FileInfo, error) {
	f, err := g.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Stat()
}

func (g *goodFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(g.FS, name) }

// memFile is an in-memory regular file.
func memFile(name string, data []byte) fs.File {
	return &mem{Reader: bytes.NewReader(data), info: memInfo{name: path.Base(name), size: int64(len(data))}}
}

type mem struct {
	*bytes.Reader
	info memInfo
}

func (m *mem) Stat() (fs.FileInfo, error) { return m.info, nil }
func (m *mem) Close() error               { return nil }

type memInfo struct {
	name string
	size int64
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) Mode() fs.FileMode  { return 0o444 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }
