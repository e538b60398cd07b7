package roles

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/langhost/langhost/host/agent/model"
	"github.com/langhost/langhost/internal/safefile"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Limits on what a role directory may hold.
const (
	maxFileSize = 64 << 10
	maxFiles    = 100
)

// Source is one layer of role files: *.yaml in FS (embedded) or Dir.
type Source struct {
	Name string // "embedded", "user", "workspace": for messages
	FS   fs.FS  // if set, read instead of Dir
	Dir  string // a directory on disk; a missing one is an empty layer
	// Trusted layers may widen a role; see the package comment.
	Trusted bool
	// Root, if set, is the workspace Dir belongs to: Dir and every file
	// read from it must resolve inside Root, so that a .langhost/roles
	// that is a symlink to another directory is refused, trusted or not.
	Root string
}

// UserDir is the directory of the user's roles next to the user config
// file (e.g. ~/.config/langhost/roles).
func UserDir(userConfigFile string) string {
	if userConfigFile == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(userConfigFile), "roles")
}

// WorkspaceDir is the directory of a workspace's roles.
func WorkspaceDir(root string) string { return filepath.Join(root, ".langhost", "roles") }

// Compiled on first use, not at package init, which every CLI start pays
// (a {n,m} repetition compiles to n..m copies of its class).
var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`) })

// Load reads the sources in order, later ones overriding earlier ones.
// Every problem is reported, each naming file:line and the field; the set
// must end up with a default role.
func Load(sources ...Source) (*Set, error) {
	s := &Set{roles: map[string]*Role{}}
	var errs []error
	for _, src := range sources {
		files, err := src.files()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, f := range files {
			r, err := parse(f.name, f.data)
			if err == nil && r.PromptKey != "" {
				err = src.readPrompt(r)
			}
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if !src.Trusted {
				base, ok := s.roles[r.Name]
				if !ok {
					base = s.roles[DefaultName]
				}
				if base == nil {
					errs = append(errs, fmt.Errorf("%s: an untrusted layer cannot define roles before a default role exists", f.name))
					continue
				}
				if removed := narrow(r, base); len(removed) > 0 {
					s.Warnings = append(s.Warnings, fmt.Sprintf("%s: %s layer is not trusted: role %s cannot widen %s; ignored: %s",
						f.name, src.Name, r.Name, base.Name, strings.Join(removed, ", ")))
				}
			}
			s.roles[r.Name] = r
		}
	}
	if len(errs) > 0 {
		code := failure.InvalidInput
		for _, err := range errs {
			if failure.CodeOf(err) == failure.Precondition {
				code = failure.Precondition // a path leading out of the workspace
			}
		}
		return nil, &failure.Error{Code: code, Message: "roles", Err: errors.Join(errs...)}
	}
	if s.roles[DefaultName] == nil {
		return nil, failure.New(failure.InvalidInput, "roles: no %s role is defined", DefaultName)
	}
	return s, nil
}

type file struct {
	name string // for messages: the path on disk or source:name
	data []byte
}

func (src Source) files() ([]file, error) {
	if src.FS != nil {
		names, err := fs.Glob(src.FS, "*.yaml")
		if err != nil {
			return nil, err
		}
		var out []file
		for _, n := range names {
			data, err := safefile.ReadFS(src.FS, n, maxFileSize)
			if err != nil {
				return nil, fmt.Errorf("%s roles: %w", src.Name, err)
			}
			out = append(out, file{name: src.Name + ":" + n, data: data})
		}
		return out, nil
	}
	if src.Dir == "" {
		return nil, nil
	}
	dir, err := src.confine(src.Dir)
	if errors.Is(err, fs.ErrNotExist) || failure.CodeOf(err) == failure.NotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	d, err := safefile.OpenDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s roles: %s: %w", src.Name, src.Dir, err)
	}
	entries, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return nil, fmt.Errorf("%s roles: %w", src.Name, err)
	}
	var out []file
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		if len(out) == maxFiles {
			return nil, fmt.Errorf("%s: more than %d role files", src.Dir, maxFiles)
		}
		p := filepath.Join(src.Dir, e.Name())
		if !src.Trusted && e.Type()&fs.ModeSymlink != 0 {
			// It could point anywhere outside the workspace.
			return nil, fmt.Errorf("%s: a symbolic link in an untrusted roles directory", p)
		}
		real, err := src.confine(p)
		if err != nil {
			return nil, err
		}
		data, err := safefile.ReadRegular(real, maxFileSize)
		if err != nil {
			return nil, fmt.Errorf("%s roles: %w", src.Name, err)
		}
		out = append(out, file{name: p, data: data})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// confine returns the real path of p for reading: p itself unless the
// layer belongs to a workspace, where p must resolve inside it
// (precondition_failed otherwise, not_found when it does not exist).
func (src Source) confine(p string) (string, error) {
	if src.Root == "" {
		return p, nil
	}
	ws, err := workspace.New(src.Root)
	if err != nil {
		return "", err
	}
	real, err := ws.ResolveRead("roles", p)
	if err != nil {
		return "", fmt.Errorf("%s roles: %s: %w", src.Name, p, err)
	}
	return real, nil
}

// readPrompt sets r.Prompt from the file r.PromptKey names in src.
func (src Source) readPrompt(r *Role) error {
	name := r.PromptKey + ".md"
	var (
		data []byte
		err  error
	)
	if src.FS != nil {
		data, err = safefile.ReadFS(src.FS, name, maxFileSize)
	} else {
		p := filepath.Join(src.Dir, name)
		var st fs.FileInfo
		if st, err = os.Lstat(p); err == nil && !src.Trusted && st.Mode()&fs.ModeSymlink != 0 {
			err = fmt.Errorf("%s: a symbolic link in an untrusted roles directory", p)
		}
		if err == nil {
			p, err = src.confine(p)
		}
		if err == nil {
			data, err = safefile.ReadRegular(p, maxFileSize)
		}
	}
	if err != nil {
		code := failure.InvalidInput
		if failure.CodeOf(err) == failure.Precondition {
			code = failure.Precondition
		}
		return &failure.Error{Code: code, Message: fmt.Sprintf("%s: promptKey %q", r.Source, r.PromptKey), Err: err}
	}
	r.Prompt = strings.TrimSpace(strings.ToValidUTF8(string(data), "\uFFFD"))
	return nil
}

// parse decodes and checks one role file.
func parse(name string, data []byte) (*Role, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var r Role
	if err := dec.Decode(&r); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty role file", name)
		}
		var te *yaml.TypeError
		if errors.As(err, &te) && len(te.Errors) > 5 {
			// A hostile file can make thousands of these.
			return nil, fmt.Errorf("%s: %s (and %d more)", name, strings.Join(te.Errors[:5], "; "), len(te.Errors)-5)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	bad := func(field, format string, args ...any) error {
		line := lineOf(&root, field)
		return &failure.Error{Code: failure.InvalidInput,
			Message: fmt.Sprintf("%s:%d: %s: %s", name, line, field, fmt.Sprintf(format, args...)),
			Details: map[string]any{"file": name, "line": line, "field": field}}
	}
	stem := strings.TrimSuffix(path.Base(filepath.ToSlash(name)), ".yaml")
	if i := strings.LastIndex(stem, ":"); i >= 0 {
		stem = stem[i+1:]
	}
	if r.Name == "" {
		r.Name = stem
	}
	var errs []error
	switch {
	case !nameRE().MatchString(r.Name):
		errs = append(errs, bad("name", "%q is not a role name (lower case letters, digits, - and _, at most 32)", r.Name))
	case r.Name != stem:
		errs = append(errs, bad("name", "%q differs from the file name %s.yaml", r.Name, stem))
	}
	for i, e := range r.Tools.SideEffects {
		if e != None && e != Workspace && e != External {
			errs = append(errs, bad("tools.sideEffects", "item %d: %q is not none, workspace or external", i, e))
		}
	}
	for i, c := range r.Tools.Categories {
		r.Tools.Categories[i] = strings.ToLower(strings.TrimSpace(c))
	}
	for _, d := range r.Tools.Deny {
		if _, err := path.Match(d, ""); err != nil {
			errs = append(errs, bad("tools.deny", "%q: %v", d, err))
		}
	}
	if r.PromptKey != "" {
		switch {
		case !nameRE().MatchString(r.PromptKey):
			errs = append(errs, bad("promptKey", "%q is not a prompt name (lower case letters, digits, - and _)", r.PromptKey))
		case strings.TrimSpace(r.Prompt) != "":
			errs = append(errs, bad("promptKey", "set together with prompt; use one"))
		}
	}
	if m := r.Model; m != nil {
		if m.Provider != "" && !slices.Contains(model.Providers, m.Provider) {
			errs = append(errs, bad("model.provider", "unknown provider %q; want one of %s", m.Provider, strings.Join(model.Providers, ", ")))
		}
		if t := m.Temperature; t != nil && (*t < 0 || *t > 2) {
			errs = append(errs, bad("model.temperature", "%g is outside [0, 2]", *t))
		}
		if m.MaxTokens < 0 {
			errs = append(errs, bad("model.maxTokens", "%d is negative", m.MaxTokens))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	r.Prompt = strings.TrimSpace(r.Prompt)
	r.Source = name
	return &r, nil
}

// lineOf returns the line of the dotted key in a YAML document, or of the
// deepest parent found; 1 if none is.
func lineOf(doc *yaml.Node, dotted string) int {
	n := doc
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line := 1
	for _, key := range strings.Split(dotted, ".") {
		if n.Kind != yaml.MappingNode {
			return line
		}
		found := false
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				line, n, found = n.Content[i].Line, n.Content[i+1], true
				break
			}
		}
		if !found {
			return line
		}
	}
	return line
}
