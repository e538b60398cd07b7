package semantic

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/lsp"
)

// Servers read files nobody opened from disk, but learn that one changed
// only from workspace/didChangeWatchedFiles, which the client sends. A
// watcher collects the changes under the workspace root between calls, and
// the session sends them before each request (flushWatched).

const (
	// maxPending bounds the paths collected between two calls; beyond it
	// the watcher sends a coarse set (every file the server cares about).
	maxPending = 10_000
	// barrierWait bounds the wait for the watcher to catch up with the
	// file system before a request; past it the request goes ahead with
	// what was collected.
	barrierWait = 2 * time.Second
	// Bounds on what a server may register, which is hostile input.
	maxWatchers       = 1_000
	maxGlobPatternLen = 1_024
)

// diskChange is one coalesced change to a path.
type diskChange struct {
	typ lsp.FileChangeType
	dir bool // the path was a watched directory
}

// watcher watches every directory under a workspace root except those
// workspace.SkipDir skips, without following symlinks.
type watcher struct {
	root string
	log  hclog.Logger
	fsw  *fsnotify.Watcher

	// A private directory whose file the flush writes to: its event comes
	// after every event the kernel queued before it, so seeing it means
	// the changes made before the call have all been collected.
	barrierDir  string
	barrierFile *os.File
	flushMu     sync.Mutex // one barrier at a time

	mu       sync.Mutex // guards the fields below
	pending  map[string]diskChange
	overflow bool            // changes were dropped: send the coarse set
	dirs     map[string]bool // watched directories
	limited  bool            // a directory could not be watched (logged once)
	barrier  chan struct{}   // closed when the barrier event arrives

	filterMu  sync.Mutex
	filterKey string
	filter    *watchFilter

	done      chan struct{}
	closeOnce sync.Once
}

// newWatcher starts watching root. It fails when the platform or the
// system's limits allow no watching at all.
func newWatcher(root string, log hclog.Logger) (*watcher, error) {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	w := &watcher{root: root, log: log, fsw: fsw, pending: map[string]diskChange{},
		dirs: map[string]bool{}, done: make(chan struct{})}
	if err := w.setupBarrier(); err != nil {
		w.log.Debug("watching files: no barrier; changes made just before a call may be seen one call late", "error", err)
	}
	w.addTree(root, false)
	w.mu.Lock()
	n := len(w.dirs)
	w.mu.Unlock()
	if n == 0 {
		_ = fsw.Close()
		w.removeBarrier()
		return nil, errors.New("could not watch the workspace root")
	}
	go w.loop()
	return w, nil
}

func (w *watcher) setupBarrier() error {
	dir, err := os.MkdirTemp("", "langhost-watch-")
	if err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "barrier"))
	if err == nil {
		err = w.fsw.Add(dir)
	}
	if err != nil {
		if f != nil {
			f.Close()
		}
		os.RemoveAll(dir)
		return err
	}
	w.barrierDir, w.barrierFile = dir, f
	return nil
}

// close stops watching; it may be called more than once.
func (w *watcher) close() {
	w.closeOnce.Do(func() {
		_ = w.fsw.Close()
		<-w.done
		w.removeBarrier()
	})
}

func (w *watcher) removeBarrier() {
	if w.barrierFile != nil {
		w.barrierFile.Close()
		os.RemoveAll(w.barrierDir)
	}
}

// addTree watches dir and the directories below it. For a directory
// created since the watch began, the files already in it are recorded as
// created: they may have been written before the watch was added.
func (w *watcher) addTree(dir string, created bool) {
	_ = filepath.WalkDir(dir, func(path string, de fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case de.IsDir():
			if path != w.root && workspace.SkipDir(de.Name()) {
				return filepath.SkipDir
			}
			if err := w.fsw.Add(path); err != nil {
				w.mu.Lock()
				first := !w.limited
				w.limited = true
				w.mu.Unlock()
				if first {
					w.log.Warn("watching files: some directories are not watched; files changed in them outside langhost may be seen late (raise fs.inotify.max_user_watches)", "dir", path, "error", err)
				}
				return filepath.SkipAll
			}
			w.mu.Lock()
			w.dirs[path] = true
			w.mu.Unlock()
		case created && de.Type().IsRegular():
			w.record(path, lsp.FileCreated, false)
		}
		return nil
	})
}

func (w *watcher) loop() {
	defer close(w.done)
	for {
		select {
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			w.handle(ev)
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.mu.Lock()
				w.overflow = true
				w.mu.Unlock()
			}
			w.log.Debug("watching files", "error", err)
		}
	}
}

func (w *watcher) handle(ev fsnotify.Event) {
	if w.barrierDir != "" && filepath.Dir(ev.Name) == w.barrierDir {
		w.mu.Lock()
		if w.barrier != nil {
			close(w.barrier)
			w.barrier = nil
		}
		w.mu.Unlock()
		return
	}
	switch {
	case ev.Has(fsnotify.Create):
		fi, err := os.Lstat(ev.Name)
		if err == nil && fi.IsDir() {
			// Lstat: a symlink to a directory is not followed, so the
			// watch never leaves the root.
			if !workspace.SkipDir(filepath.Base(ev.Name)) {
				w.addTree(ev.Name, true)
			}
			return
		}
		w.record(ev.Name, lsp.FileCreated, false)
	case ev.Has(fsnotify.Write):
		w.record(ev.Name, lsp.FileChanged, false)
	case ev.Has(fsnotify.Remove), ev.Has(fsnotify.Rename):
		w.mu.Lock()
		wasDir := w.dirs[ev.Name]
		var gone []string
		if wasDir {
			for d := range w.dirs {
				if d == ev.Name || strings.HasPrefix(d, ev.Name+string(filepath.Separator)) {
					delete(w.dirs, d)
					gone = append(gone, d)
				}
			}
		}
		w.mu.Unlock()
		for _, d := range gone {
			// A directory moved elsewhere keeps its watch otherwise.
			_ = w.fsw.Remove(d)
		}
		w.record(ev.Name, lsp.FileDeleted, wasDir)
	}
}

// record coalesces a change to path with those collected before.
func (w *watcher) record(path string, typ lsp.FileChangeType, dir bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	prev, ok := w.pending[path]
	if !ok {
		if len(w.pending) >= maxPending {
			w.overflow = true
			return
		}
		w.pending[path] = diskChange{typ: typ, dir: dir}
		return
	}
	switch {
	case typ == lsp.FileDeleted:
		prev.typ = lsp.FileDeleted
	case prev.typ == lsp.FileDeleted:
		// Deleted and created again: the server knew the old file.
		prev.typ = lsp.FileChanged
	}
	prev.dir = prev.dir || dir
	w.pending[path] = prev
}

// take waits until the changes made before it are collected, then returns
// and forgets them. overflow says they are incomplete.
func (w *watcher) take(ctx context.Context) (changes map[string]diskChange, overflow bool) {
	w.syncBarrier(ctx)
	w.mu.Lock()
	defer w.mu.Unlock()
	changes, overflow = w.pending, w.overflow
	w.pending, w.overflow = map[string]diskChange{}, false
	return changes, overflow
}

// structureFiles decide what a server loads: modules, workspaces,
// projects, solutions and a Python project's settings. gopls (a nested
// go.mod removed), csharp-ls (a .csproj, .sln or .slnx edited) and pyright
// (pyproject.toml's exclude) keep answering from what they loaded before
// such a change, didChangeWatchedFiles or not, so the engine restarts the
// server after one (TestFreshness in internal/difftest holds the answer
// to a cold one).
var structureFiles = []string{"go.mod", "go.work", "pyproject.toml", "setup.py", "setup.cfg", "pyrightconfig.json",
	"*.csproj", "*.fsproj", "*.sln", "*.slnx", "*.props", "*.targets"}

// structureChanged waits for the watcher to catch up with the file system
// and reports the first structure file changed since the last take; the
// changes stay pending.
func (w *watcher) structureChanged(ctx context.Context) string {
	w.syncBarrier(ctx)
	w.mu.Lock()
	defer w.mu.Unlock()
	for p, c := range w.pending {
		if c.dir {
			continue
		}
		base := filepath.Base(p)
		for _, f := range structureFiles {
			if f == base || strings.HasPrefix(f, "*") && strings.HasSuffix(base, f[1:]) {
				return p
			}
		}
	}
	return ""
}

// syncBarrier writes the barrier file and waits for its event.
func (w *watcher) syncBarrier(ctx context.Context) {
	if w.barrierFile == nil {
		return
	}
	w.flushMu.Lock()
	defer w.flushMu.Unlock()
	c := make(chan struct{})
	w.mu.Lock()
	w.barrier = c
	w.mu.Unlock()
	if _, err := w.barrierFile.WriteAt([]byte{'.'}, 0); err != nil {
		w.log.Debug("watching files: writing the barrier", "error", err)
		return
	}
	t := time.NewTimer(barrierWait)
	defer t.Stop()
	select {
	case <-c:
	case <-w.done:
	case <-ctx.Done():
	case <-t.C:
		w.log.Debug("watching files: the barrier event did not arrive")
	}
}

// watchedDirs returns the watched directories.
func (w *watcher) watchedDirs() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	dirs := make([]string, 0, len(w.dirs))
	for d := range w.dirs {
		dirs = append(dirs, d)
	}
	return dirs
}

// coarse returns, after changes were dropped, a change for every watched
// directory (servers such as gopls apply one to every file they know in
// it, which covers deletions) and every regular file in them.
func (w *watcher) coarse() map[string]diskChange {
	out := map[string]diskChange{}
	for _, d := range w.watchedDirs() {
		out[d] = diskChange{typ: lsp.FileChanged, dir: true}
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, de := range entries {
			if de.Type().IsRegular() {
				out[filepath.Join(d, de.Name())] = diskChange{typ: lsp.FileChanged}
			}
		}
	}
	return out
}

// watchFilter says which changes a server cares about: those its
// didChangeWatchedFiles registrations match, else the language's source
// files and well-known project files.
type watchFilter struct {
	globs []globWatcher // nil: the default
	root  string
	exts  map[string]bool
}

// projectFiles are the project files of the default filter, by name or,
// starting with "*", by extension.
var projectFiles = []string{"go.mod", "go.sum", "go.work", "go.work.sum", "pyproject.toml", "setup.py", "setup.cfg",
	"requirements.txt", "package.json", "tsconfig.json", "jsconfig.json", "*.csproj", "*.sln", "*.props", "*.targets"}

func (f *watchFilter) match(path string, c diskChange) bool {
	if c.dir {
		return true // a directory stands for the files in it
	}
	if f.globs == nil {
		if f.exts[filepath.Ext(path)] {
			return true
		}
		base := filepath.Base(path)
		for _, p := range projectFiles {
			if p == base || strings.HasPrefix(p, "*") && strings.HasSuffix(base, p[1:]) {
				return true
			}
		}
		return false
	}
	slash := filepath.ToSlash(path)
	for _, g := range f.globs {
		if g.match(slash, c.typ, filepath.ToSlash(f.root)) {
			return true
		}
	}
	return false
}

// globWatcher is one FileSystemWatcher a server registered.
type globWatcher struct {
	base string // slash path of a relative pattern's base; "" for a plain pattern
	re   *regexp.Regexp
	kind int // WatchKind bits: create 1, change 2, delete 4
}

func (g globWatcher) match(slashPath string, typ lsp.FileChangeType, slashRoot string) bool {
	bit := map[lsp.FileChangeType]int{lsp.FileCreated: 1, lsp.FileChanged: 2, lsp.FileDeleted: 4}[typ]
	if g.kind&bit == 0 {
		return false
	}
	if g.base != "" {
		rel, ok := strings.CutPrefix(slashPath, strings.TrimSuffix(g.base, "/")+"/")
		return ok && g.re.MatchString(rel)
	}
	// A plain pattern is matched against the absolute path, and against
	// the path relative to the root for patterns such as "*.go".
	if g.re.MatchString(slashPath) {
		return true
	}
	rel, ok := strings.CutPrefix(slashPath, strings.TrimSuffix(slashRoot, "/")+"/")
	return ok && g.re.MatchString(rel)
}

// parseWatchers decodes the watchers of didChangeWatchedFiles
// registrations, skipping those it cannot use.
func parseWatchers(regs []lsp.Registration, log hclog.Logger) []globWatcher {
	var out []globWatcher
	for _, r := range regs {
		if r.Method != "workspace/didChangeWatchedFiles" {
			continue
		}
		var opts struct {
			Watchers []struct {
				GlobPattern json.RawMessage `json:"globPattern"`
				Kind        *int            `json:"kind"`
			} `json:"watchers"`
		}
		if err := json.Unmarshal(r.RegisterOptions, &opts); err != nil {
			log.Debug("ignoring a didChangeWatchedFiles registration", "id", r.ID, "error", err)
			continue
		}
		for _, wt := range opts.Watchers {
			if len(out) >= maxWatchers {
				return out
			}
			g, err := parseGlobPattern(wt.GlobPattern)
			if err != nil {
				log.Debug("ignoring a file watcher", "id", r.ID, "error", err)
				continue
			}
			g.kind = 7
			if wt.Kind != nil {
				g.kind = *wt.Kind
			}
			out = append(out, g)
		}
	}
	return out
}

// parseGlobPattern decodes an LSP GlobPattern: a pattern, or a
// RelativePattern whose baseUri is a URI or a WorkspaceFolder.
func parseGlobPattern(raw json.RawMessage) (globWatcher, error) {
	var pattern string
	if err := json.Unmarshal(raw, &pattern); err == nil {
		re, err := compileGlob(pattern)
		return globWatcher{re: re}, err
	}
	var rel struct {
		BaseURI json.RawMessage `json:"baseUri"`
		Pattern string          `json:"pattern"`
	}
	if err := json.Unmarshal(raw, &rel); err != nil {
		return globWatcher{}, errors.New("globPattern is neither a pattern nor a relative pattern")
	}
	var uri lsp.DocumentURI
	if err := json.Unmarshal(rel.BaseURI, &uri); err != nil {
		var folder lsp.WorkspaceFolder
		if err := json.Unmarshal(rel.BaseURI, &folder); err != nil {
			return globWatcher{}, errors.New("baseUri is neither a URI nor a workspace folder")
		}
		uri = lsp.DocumentURI(folder.URI)
	}
	base, err := uri.Path()
	if err != nil {
		return globWatcher{}, err
	}
	re, err := compileGlob(rel.Pattern)
	return globWatcher{base: filepath.ToSlash(base), re: re}, err
}

// compileGlob translates an LSP glob pattern into a regular expression:
// "*" matches within one path segment, "**" any number of segments, "?"
// one character, "{a,b}" either alternative (nested too), "[a-z]" and
// "[!a-z]" a character range.
func compileGlob(pattern string) (*regexp.Regexp, error) {
	if pattern == "" {
		return nil, errors.New("empty glob pattern")
	}
	if len(pattern) > maxGlobPatternLen {
		return nil, errors.New("glob pattern too long")
	}
	var b strings.Builder
	b.WriteString(`(?s)^`) // names may hold newlines
	depth := 0
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '*' && strings.HasPrefix(pattern[i:], "**/"):
			b.WriteString(`(?:.*/)?`)
			i += 2
		case c == '*' && strings.HasPrefix(pattern[i:], "**"):
			b.WriteString(`.*`)
			i++
		case c == '*':
			b.WriteString(`[^/]*`)
		case c == '?':
			b.WriteString(`[^/]`)
		case c == '{':
			depth++
			b.WriteString(`(?:`)
		case c == '}' && depth > 0:
			depth--
			b.WriteString(`)`)
		case c == ',' && depth > 0:
			b.WriteString(`|`)
		case c == '[':
			end := strings.IndexByte(pattern[i+1:], ']')
			if end < 1 {
				b.WriteString(`\[`)
				continue
			}
			class := pattern[i+1 : i+1+end]
			b.WriteString(`[`)
			if class[0] == '!' || class[0] == '^' {
				b.WriteString(`^/`)
				class = class[1:]
			}
			for _, r := range class {
				if r == '-' {
					b.WriteRune(r)
				} else {
					b.WriteString(regexp.QuoteMeta(string(r)))
				}
			}
			b.WriteString(`]`)
			i += end + 1
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	if depth != 0 {
		return nil, errors.New("unbalanced braces in glob pattern")
	}
	b.WriteString(`$`)
	return regexp.Compile(b.String())
}

// flushWatched sends the changes collected since the last request as one
// workspace/didChangeWatchedFiles notification, filtered to the files the
// server cares about. Open documents are left out: refresh sends their new
// content with didChange.
func (s *session) flushWatched(ctx context.Context) error {
	w := s.watch
	if w == nil {
		return nil
	}
	changes, overflow := w.take(ctx)
	if overflow {
		for p, c := range w.coarse() {
			if _, ok := changes[p]; !ok {
				changes[p] = c
			}
		}
	}
	if len(changes) == 0 {
		return nil
	}
	f := s.watchFilter()
	paths := make([]string, 0, len(changes))
	for p, c := range changes {
		if f.match(p, c) && s.openDoc(p) == nil {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return nil
	}
	slices.Sort(paths)
	events := make([]lsp.FileEvent, len(paths))
	for i, p := range paths {
		events[i] = lsp.FileEvent{URI: lsp.URIFromPath(p), Type: changes[p].typ}
	}
	s.e.log.Debug("files changed on disk", "changes", len(events))
	if err := s.srv.Notify(ctx, "workspace/didChangeWatchedFiles", map[string]any{"changes": events}); err != nil {
		return err
	}
	var created []string
	for _, p := range paths {
		if c := changes[p]; c.typ == lsp.FileCreated && !c.dir && s.checks(p) {
			created = append(created, p)
		}
	}
	if !s.takesWatchedFiles() {
		return s.openCreated(ctx, created)
	}
	return s.loadPackagesOf(ctx, created)
}

// takesWatchedFiles reports whether the server asked to be told of files
// changed on disk (it registered workspace/didChangeWatchedFiles).
func (s *session) takesWatchedFiles() bool {
	for _, r := range s.srv.Registrations() {
		if r.Method == "workspace/didChangeWatchedFiles" {
			return true
		}
	}
	return false
}

// openCreated opens the created source files for the rest of the call,
// for a server that cannot be told of them: typescript-language-server
// 5.1.3 ignores didChangeWatchedFiles, and its tsserver, which watches the
// project's directories itself, took about a second to add a new file to
// the project, answering find_references without its uses until then. A
// file opened is in its project at once; a deleted one leaves at once.
func (s *session) openCreated(ctx context.Context, created []string) error {
	for i, p := range created {
		if i == maxPackageLoads {
			s.e.log.Debug("too many new files to open now", "limit", maxPackageLoads)
			break
		}
		// document opens regular files of the workspace only: no named
		// pipe, no symlink.
		if _, err := s.document(ctx, p); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			s.e.log.Debug("opening a new file", "file", p, "error", err)
		}
	}
	return nil
}

// goplsListImports is gopls's command that lists a file's imports. To
// answer it gopls loads the package of the file when it knows none
// (snapshot.NarrowestMetadataForFile), which is why it is asked. gopls
// v0.23.0 loads the workspace's packages once, at start-up, and later only
// the package of a file a request names: a created file does not reload
// the workspace (cache/snapshot.go clone reinitialises only for changes
// of go.mod, go.work, go.sum and vendor), so a package directory created
// after start-up stayed missing from find_references and every other
// workspace-wide answer until the server restarted.
const goplsListImports = "gopls.list_imports"

// maxPackageLoads bounds the directories loadPackagesOf asks about per
// call: a checkout creating thousands must not stall the call. Past it
// the packages load when a request names one of their files.
const maxPackageLoads = 64

// loadPackagesOf makes a server that loads packages only on demand load
// the packages of created files, one file per directory.
func (s *session) loadPackagesOf(ctx context.Context, created []string) error {
	if len(created) == 0 || !s.hasCommand(goplsListImports) {
		return nil
	}
	dirs := map[string]bool{}
	for _, p := range created {
		dir := filepath.Dir(p)
		if dirs[dir] {
			continue
		}
		// gopls reads the file to answer: a named pipe would block it,
		// and a symlink may lead anywhere.
		if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if len(dirs) == maxPackageLoads {
			s.e.log.Debug("too many new directories to load now", "limit", maxPackageLoads)
			break
		}
		dirs[dir] = true
		err := s.call(ctx, "workspace/executeCommand", map[string]any{
			"command": goplsListImports, "arguments": []any{map[string]any{"URI": lsp.URIFromPath(p)}}}, nil)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			// A file that is not Go after all, or was removed again.
			s.e.log.Debug("loading the package of a new file", "file", p, "error", err)
		}
	}
	return nil
}

// watchFilter returns the filter for the server's current registrations,
// compiled once per set of registrations.
func (s *session) watchFilter() *watchFilter {
	regs := s.srv.Registrations()
	slices.SortFunc(regs, func(a, b lsp.Registration) int { return strings.Compare(a.ID, b.ID) })
	var key strings.Builder
	for _, r := range regs {
		if r.Method == "workspace/didChangeWatchedFiles" {
			key.WriteString(r.ID)
			key.WriteByte(0)
			key.Write(r.RegisterOptions)
			key.WriteByte(0)
		}
	}
	w := s.watch
	w.filterMu.Lock()
	defer w.filterMu.Unlock()
	if w.filter != nil && w.filterKey == key.String() {
		return w.filter
	}
	f := &watchFilter{root: s.e.lspRoot, exts: map[string]bool{}}
	for ext := range s.e.cfg.LanguageIDs {
		f.exts[ext] = true
	}
	if key.Len() > 0 {
		f.globs = parseWatchers(regs, s.e.log)
		if len(f.globs) == 0 {
			f.globs = nil // nothing usable: the default
		}
	}
	w.filter, w.filterKey = f, key.String()
	return f
}
