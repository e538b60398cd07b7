package spec

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/langhost/langhost/internal/safefile"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// DefaultMaxSize is the largest spec file read unless Limits says
// otherwise (config spec.max_size). The shipped specs are under 20 KiB.
const DefaultMaxSize = 1 << 20

// Limits bound what loading may cost, whatever is in the spec directories.
type Limits struct {
	MaxSize int64 // bytes per spec file; DefaultMaxSize if 0
}

// Source is one place language specs are read from. Sources are given in
// precedence order: a spec in a later source replaces an earlier spec with
// the same language id.
type Source struct {
	Name  string // label shown to users: embedded, user, workspace, flag
	FS    fs.FS
	Label string   // prefix for file names in messages, e.g. a directory path
	Files []string // if set, only these files of FS (else every *.yaml/*.yml at its top)
	// NamedByID says each file is named <language id>.yaml, so that
	// LoadLanguages can read just the files it needs (the embedded specs).
	NamedByID bool
}

// DirSource reads the specs in dir. A missing dir is an empty source unless
// required is set. An optional dir that cannot be listed (not a directory,
// not readable) is a problem reported when loading, so that a bad user or
// workspace directory costs its specs, not the host.
func DirSource(name, dir string, required bool) (Source, error) {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !required:
		return Source{Name: name, Label: dir}, nil
	case !required:
		// Listed when loading: a failure then is a reported problem.
	case err == nil && !st.IsDir():
		return Source{}, failure.New(failure.InvalidInput, "language directory %s: not a directory", dir)
	case errors.Is(err, fs.ErrNotExist):
		return Source{}, failure.Wrap(failure.NotFound, err, "language directory")
	case err != nil:
		return Source{}, failure.Wrap(failure.Precondition, err, "language directory")
	}
	return Source{Name: name, FS: osFS{dir: dir}, Label: dir}, nil
}

// PathsSource reads the named files and directories (as given to
// `langhost validate`).
func PathsSource(name string, paths []string) (Source, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return Source{}, fmt.Errorf("spec path: %w", err)
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		entries, err := readDir(p)
		if err != nil {
			return Source{}, fmt.Errorf("spec path: %w", err)
		}
		for _, e := range entries {
			if !e.IsDir() && isSpecName(e.Name()) {
				files = append(files, filepath.Join(p, e.Name()))
			}
		}
	}
	return Source{Name: name, FS: osFS{}, Files: files}, nil
}

// osFS reads spec files from the operating system. Unlike os.DirFS it
// refuses anything but a regular file, whatever a symlink points to, and
// never blocks opening a named pipe.
type osFS struct {
	dir string // "" opens names as given, relative or absolute (PathsSource)
}

func (f osFS) path(op, name string) (string, error) {
	if f.dir == "" {
		return name, nil
	}
	if !fs.ValidPath(name) {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return filepath.Join(f.dir, filepath.FromSlash(name)), nil
}

// Stat follows symlinks, so that the mode is that of the file read.
func (f osFS) Stat(name string) (fs.FileInfo, error) {
	p, err := f.path("stat", name)
	if err != nil {
		return nil, err
	}
	return os.Stat(p)
}

func (f osFS) ReadDir(name string) ([]fs.DirEntry, error) {
	p, err := f.path("readdir", name)
	if err != nil {
		return nil, err
	}
	return readDir(p)
}

// Open opens a regular file.
func (f osFS) Open(name string) (fs.File, error) {
	p, err := f.path("open", name)
	if err != nil {
		return nil, err
	}
	f2, err := safefile.Open(p)
	if err != nil {
		return nil, specFileError(err)
	}
	return f2, nil
}

// readDir is os.ReadDir that does not block when dir is a named pipe.
func readDir(dir string) ([]fs.DirEntry, error) {
	f, err := safefile.OpenDir(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	return entries, err
}

// specFileError says what is wrong with a file that is not a spec file:
// another kind of file, or one over the size limit.
func specFileError(err error) error {
	var nr *safefile.NotRegularError
	var tl *safefile.TooLargeError
	switch {
	case errors.As(err, &nr):
		return fmt.Errorf("not a regular file: it is %s; a spec must be a regular YAML file", nr.Kind())
	case errors.As(err, &tl):
		return fmt.Errorf("file is larger than the spec size limit of %d bytes (config spec.max_size)", tl.Max)
	}
	return err
}

// readSpec reads one spec file of src, refusing non-regular files and
// files over maxSize before reading them. The read itself is capped too:
// the file may grow after Stat.
func readSpec(src Source, name string, maxSize int64) ([]byte, error) {
	data, err := safefile.ReadFS(src.FS, name, maxSize)
	if err != nil {
		return nil, specFileError(err)
	}
	return data, nil
}

func isSpecName(name string) bool {
	return strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")
}

// Set is the result of loading every source: the specs that loaded, keyed
// by language id, and the files that were skipped with their problems.
type Set struct {
	Languages []*File      // sorted by language id
	Problems  []*FileError // one per skipped file
	// Replaced lists, for a language defined in several sources, the files
	// whose spec was replaced by a later one.
	Replaced map[string][]string
	byID     map[string]*File
}

// Language returns the spec with the given language id.
func (s *Set) Language(id string) (*File, bool) {
	f, ok := s.byID[id]
	return f, ok
}

// Load reads all sources in order with the default limits. A bad file is
// recorded in Problems and skipped.
func Load(sources []Source) *Set {
	set, _ := LoadLanguages(context.Background(), sources, nil, Limits{})
	return set
}

// LoadLanguages reads the sources in order. A bad file does not fail it: it
// is recorded in Problems and skipped. Only a cancelled ctx does, as soon
// as the file being read or parsed is done.
//
// If only is not nil the caller needs just those languages (a tool run
// needs one): from NamedByID sources it reads just their files. Other
// sources are read in full, so their problems are still reported.
func LoadLanguages(ctx context.Context, sources []Source, only []string, limits Limits) (*Set, error) {
	if limits.MaxSize <= 0 {
		limits.MaxSize = DefaultMaxSize
	}
	set := &Set{byID: map[string]*File{}, Replaced: map[string][]string{}}

	// Read every file first, then parse them in parallel (parsing and
	// compiling regexes dominate start-up), then merge in source order so
	// that precedence stays deterministic.
	type job struct {
		source  int
		display string
		data    []byte
		file    *File
		err     error
	}
	var jobs []*job
	for i, src := range sources {
		for _, name := range sourceFiles(src, set) {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("load language specs: %w", err)
			}
			if only != nil && src.NamedByID && !contains(only, strings.TrimSuffix(strings.TrimSuffix(name, ".yaml"), ".yml")) {
				continue
			}
			display := name
			if src.Label != "" {
				display = filepath.Join(src.Label, name)
			}
			data, err := readSpec(src, name, limits.MaxSize)
			jobs = append(jobs, &job{source: i, display: display, data: data, err: err})
		}
	}
	work := make(chan *job)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(len(jobs), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				if ctx.Err() == nil { // else drain: the result is discarded
					j.file, j.err = Parse(j.display, j.data)
				}
			}
		}()
	}
	for _, j := range jobs {
		if j.err == nil {
			work <- j
		}
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("load language specs: %w", err)
	}

	inSource := map[string]string{}
	for i, j := range jobs {
		if i > 0 && jobs[i-1].source != j.source {
			inSource = map[string]string{}
		}
		if j.err != nil {
			set.Problems = append(set.Problems, asFileError(j.display, j.err))
			continue
		}
		f := j.file
		id := f.Language.ID
		if prev, dup := inSource[id]; dup {
			set.Problems = append(set.Problems, &FileError{File: j.display, Problems: []Problem{{
				File: j.display, Field: "language.id",
				Message: fmt.Sprintf("language %q is also defined by %s in the same directory", id, prev)}}})
			continue
		}
		inSource[id] = j.display
		if old, ok := set.byID[id]; ok {
			set.Replaced[id] = append(set.Replaced[id], old.Source)
		}
		set.byID[id] = f
	}
	for _, f := range set.byID {
		set.Languages = append(set.Languages, f)
	}
	sort.Slice(set.Languages, func(i, j int) bool { return set.Languages[i].Language.ID < set.Languages[j].Language.ID })
	return set, nil
}

func sourceFiles(src Source, set *Set) []string {
	if src.FS == nil {
		return nil
	}
	if src.Files != nil {
		return src.Files
	}
	entries, err := fs.ReadDir(src.FS, ".")
	if err != nil {
		set.Problems = append(set.Problems, &FileError{File: src.Label, Problems: []Problem{{File: src.Label, Message: err.Error()}}})
		return nil
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && isSpecName(e.Name()) {
			names = append(names, path.Clean(e.Name()))
		}
	}
	return names
}

func asFileError(name string, err error) *FileError {
	var fe *FileError
	if errors.As(err, &fe) {
		return fe
	}
	return &FileError{File: name, Problems: []Problem{{File: name, Message: err.Error()}}}
}
