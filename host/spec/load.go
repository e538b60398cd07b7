package spec

import (
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
)

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
// required is set.
func DirSource(name, dir string, required bool) (Source, error) {
	st, err := os.Stat(dir)
	switch {
	case err == nil && !st.IsDir():
		return Source{}, fmt.Errorf("%s: not a directory", dir)
	case errors.Is(err, fs.ErrNotExist) && !required:
		return Source{Name: name, Label: dir}, nil
	case err != nil:
		return Source{}, fmt.Errorf("language directory: %w", err)
	}
	return Source{Name: name, FS: os.DirFS(dir), Label: dir}, nil
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
		entries, err := os.ReadDir(p)
		if err != nil {
			return Source{}, fmt.Errorf("spec path: %w", err)
		}
		for _, e := range entries {
			if !e.IsDir() && isSpecName(e.Name()) {
				files = append(files, filepath.Join(p, e.Name()))
			}
		}
	}
	return Source{Name: name, FS: rootFS{}, Files: files}, nil
}

// rootFS opens paths as given, relative or absolute, for PathsSource.
type rootFS struct{}

func (rootFS) Open(name string) (fs.File, error) { return os.Open(name) }

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

// Load reads all sources in order. It never fails as a whole: a bad file is
// recorded in Problems and skipped.
func Load(sources []Source) *Set { return load(sources, nil) }

// LoadLanguages is Load for a caller that needs only the given languages
// (a tool run needs one): from NamedByID sources it reads just their files.
// Other sources are read in full, so their problems are still reported.
func LoadLanguages(sources []Source, ids []string) *Set { return load(sources, ids) }

func load(sources []Source, only []string) *Set {
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
			if only != nil && src.NamedByID && !contains(only, strings.TrimSuffix(strings.TrimSuffix(name, ".yaml"), ".yml")) {
				continue
			}
			display := name
			if src.Label != "" {
				display = filepath.Join(src.Label, name)
			}
			data, err := fs.ReadFile(src.FS, name)
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
				j.file, j.err = Parse(j.display, j.data)
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
	return set
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
