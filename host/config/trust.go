package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/langhost/langhost/internal/atomicfile"
	"github.com/langhost/langhost/internal/safefile"
	"github.com/langhost/langhost/internal/workspace"
)

// WorkspaceSpecDir returns the directory of the workspace's own language
// specs. They define commands, so they load only in a trusted workspace.
func WorkspaceSpecDir(root string) string { return filepath.Join(root, ".langhost", "languages") }

// notTrusted is the reason given for a workspace nobody trusted.
const notTrusted = "workspace not trusted; run `langhost trust`"

// TrustEntry is one trusted workspace in the trust store.
type TrustEntry struct {
	Path      string    `json:"path"`   // real path of the workspace root
	Digest    string    `json:"digest"` // Snapshot.Digest when it was trusted
	TrustedAt time.Time `json:"trusted_at"`
}

// TrustStore is the list of trusted workspaces, a JSON file in the user
// config dir (~/.config/langhost/trusted.json) that only langhost trust
// writes.
type TrustStore struct{ File string }

type trustFile struct {
	Workspaces []TrustEntry `json:"workspaces"`
}

// List returns the trusted workspaces. A missing store is empty.
func (s TrustStore) List() ([]TrustEntry, error) {
	if s.File == "" {
		return nil, nil
	}
	data, err := readConfig(s.File)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var tf trustFile
	if err := json.Unmarshal(data, &tf); err != nil {
		return nil, fmt.Errorf("%s: %w", s.File, err)
	}
	return tf.Workspaces, nil
}

// Add records snap as trusted, replacing an earlier entry for its root.
func (s TrustStore) Add(snap *Snapshot, now time.Time) (TrustEntry, error) {
	e := TrustEntry{Path: snap.Root, Digest: snap.Digest, TrustedAt: now.UTC().Truncate(time.Second)}
	list, err := s.List()
	if err != nil {
		return e, err
	}
	list = slices.DeleteFunc(list, func(old TrustEntry) bool { return old.Path == e.Path })
	list = append(list, e)
	sort.Slice(list, func(i, j int) bool { return list[i].Path < list[j].Path })
	return e, s.save(list)
}

// Remove forgets the workspace at path (a real path) and reports whether
// it was trusted.
func (s TrustStore) Remove(path string) (bool, error) {
	list, err := s.List()
	if err != nil {
		return false, err
	}
	n := len(list)
	list = slices.DeleteFunc(list, func(e TrustEntry) bool { return e.Path == path })
	if len(list) == n {
		return false, nil
	}
	return true, s.save(list)
}

func (s TrustStore) save(list []TrustEntry) error {
	if s.File == "" {
		return errors.New("no user config directory for the trust store (set HOME or XDG_CONFIG_HOME)")
	}
	data, err := json.MarshalIndent(trustFile{Workspaces: list}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.File), 0o700); err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	// A crash must never leave a half-written store (which would distrust
	// everything).
	if err := atomicfile.WriteFile(s.File, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	return nil
}

// Snapshot is what trusting a workspace covers: its real path and a digest
// of the files that can grant permissions or define commands (see
// digest): its .langhost.yaml, specs, roles, the spec directories its
// config names and its bench files. Changing, adding or removing any of
// them withdraws the trust until the user trusts again. Prompts
// (.langhost/prompts, AGENTS.md) are not covered: they are text, always
// given to a model as the workspace's data, and grant nothing.
type Snapshot struct {
	Root   string   `json:"root"`
	Digest string   `json:"digest"`
	Files  []string `json:"files"` // the covered files, relative to Root when inside it
	// Grants lists the keys of the workspace config that only apply when
	// the workspace is trusted.
	Grants []string `json:"grants"`
}

// TakeSnapshot reads what trusting the workspace at dir would cover.
func TakeSnapshot(paths Paths, dir string) (*Snapshot, error) {
	root, err := workspace.New(dir)
	if err != nil {
		return nil, err
	}
	file, data, err := readWorkspaceConfig(paths, root)
	if err != nil {
		return nil, err
	}
	snap := &Snapshot{Root: root.Dir(), Grants: []string{}}
	snap.Digest, snap.Files = digest(root.Dir(), file, data)
	if file != "" {
		// A config that does not load cannot be reviewed: refuse it now
		// rather than on every later run.
		values, _, err := parseConfig(file, data)
		if err != nil {
			return nil, err
		}
		for _, k := range Keys {
			if _, ok := lookupNested(values, k.Name); ok && !k.Workspace {
				snap.Grants = append(snap.Grants, k.Name)
			}
		}
	}
	return snap, nil
}

// readWorkspaceConfig reads the config file of the workspace at root;
// file is "" when it has none.
func readWorkspaceConfig(paths Paths, root *workspace.Root) (file string, data []byte, err error) {
	if paths.Workspace == "" {
		return "", nil, nil
	}
	file = paths.WorkspaceFile(root.Dir())
	if !filepath.IsAbs(paths.Workspace) {
		// The file is the workspace's: it may not be a symlink out of it.
		if _, err := root.Resolve("workspace config", paths.Workspace); err != nil {
			return "", nil, fmt.Errorf("%s: %w", file, err)
		}
	}
	data, err = readConfig(file)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil, nil
	}
	return file, data, err
}

// decideTrust decides whether the workspace at root (with the config file
// and its content data, if any) is trusted.
func decideTrust(store, root, file string, data []byte, trustAll bool, origin string) (Trust, error) {
	t := Trust{Root: root}
	if trustAll {
		t.Trusted, t.Reason = true, "trusted by "+origin
		return t, nil
	}
	list, err := TrustStore{File: store}.List()
	if err != nil {
		return t, err
	}
	for _, e := range list {
		if e.Path != root {
			continue
		}
		if d, _ := digest(root, file, data); d != e.Digest {
			t.Reason = fmt.Sprintf("workspace changed since it was trusted at %s (its .langhost.yaml, specs, roles or bench files); review it and run `langhost trust` again",
				e.TrustedAt.Format(time.RFC3339))
			return t, nil
		}
		t.Trusted, t.Reason = true, "trusted with `langhost trust` at "+e.TrustedAt.Format(time.RFC3339)
		return t, nil
	}
	t.Reason = notTrusted
	return t, nil
}

// maxDigestedSpec bounds how much of one spec file is hashed; far more
// than the spec loader accepts.
const maxDigestedSpec = 64 << 20

// Bounds on what the digest walks: a hostile workspace must not make
// every command read without end.
const (
	maxDigestEntries = 10000 // directory entries listed per covered directory, or walked in bench/
	maxBenchDepth    = 4     // bench/a/b/c/scenario.yaml
)

// BenchDir is the workspace directory whose scenario and run config files
// trust covers: `langhost bench run` runs their check commands (and an
// external runner's command) only from there, in a trusted workspace.
const BenchDir = "bench"

// RolesDir is the workspace directory of role files, relative to its root.
const RolesDir = ".langhost/roles"

// digest hashes everything trusting a workspace covers, names and
// contents: the workspace config (file, with content data), its specs
// (.langhost/languages/*.yaml), its roles (.langhost/roles/*.yaml and
// their prompt files *.md), the spec directories its config names under
// languages (wherever they are: they are read when it is trusted) and the
// YAML files under bench/ (scenarios and run configs, whose commands
// bench runs). Files it cannot read are hashed as such, so that the digest
// never fails and changes when they do. A workspace with none of the
// later kinds hashes as it did before they were covered.
func digest(root, file string, data []byte) (string, []string) {
	d := &digester{h: sha256.New(), root: root}
	if file != "" {
		d.files = append(d.files, relTo(root, file))
		fmt.Fprintf(d.h, "config %d\n", len(data))
		d.h.Write(data)
	}
	d.dir("specs", "spec", WorkspaceSpecDir(root), ".yaml", ".yml")
	d.dir("roles", "role", filepath.Join(root, filepath.FromSlash(RolesDir)), ".yaml", ".md")
	for i, dir := range configLanguages(root, file, data) {
		d.dir(fmt.Sprintf("languages[%d] %q", i, dir), "languages spec", dir, ".yaml", ".yml")
	}
	d.bench(filepath.Join(root, BenchDir))
	return "sha256:" + hex.EncodeToString(d.h.Sum(nil)), d.files
}

type digester struct {
	h     hash.Hash
	root  string
	files []string
}

// dir hashes the files directly in dir whose names end in one of
// suffixes. A missing dir hashes as nothing.
func (d *digester) dir(label, kind, dir string, suffixes ...string) {
	// safefile.OpenDir never blocks on a named pipe planted as the dir.
	f, err := safefile.OpenDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		fmt.Fprintf(d.h, "%s unreadable %q\n", label, err)
		return
	}
	entries, err := f.ReadDir(maxDigestEntries + 1)
	f.Close()
	if err != nil && err != io.EOF {
		fmt.Fprintf(d.h, "%s unreadable %q\n", label, err)
	}
	if len(entries) > maxDigestEntries {
		fmt.Fprintf(d.h, "%s has more than %d entries\n", label, maxDigestEntries)
		entries = entries[:maxDigestEntries]
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	for _, e := range entries {
		if !hasSuffix(e.Name(), suffixes) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		d.files = append(d.files, relTo(d.root, p))
		hashFile(d.h, kind, p, e.Name())
	}
}

// bench hashes the YAML files under dir, without following symlinks (a
// link is hashed as where it points), to maxBenchDepth.
func (d *digester) bench(dir string) {
	seen := 0
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == dir {
			return fs.SkipAll
		}
		rel := relTo(d.root, p)
		if err != nil {
			fmt.Fprintf(d.h, "bench %q unreadable\n", rel)
			return nil
		}
		if seen++; seen > maxDigestEntries {
			fmt.Fprintf(d.h, "bench has more than %d entries\n", maxDigestEntries)
			return fs.SkipAll
		}
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			fmt.Fprintf(d.h, "bench link %q -> %q\n", rel, target)
		case e.IsDir():
			if p != dir && (workspace.SkipDir(e.Name()) || strings.Count(rel, "/") >= maxBenchDepth) {
				return fs.SkipDir
			}
		case hasSuffix(e.Name(), []string{".yaml", ".yml"}):
			d.files = append(d.files, rel)
			hashFile(d.h, "bench", p, rel)
		}
		return nil
	})
	if err != nil {
		fmt.Fprintf(d.h, "bench unreadable %q\n", err)
	}
}

// configLanguages returns the spec directories the workspace config
// names under languages, relative ones resolved against root as Load
// does. A config that does not parse names none (it cannot be trusted).
func configLanguages(root, file string, data []byte) []string {
	if file == "" {
		return nil
	}
	values, _, err := parseConfig(file, data)
	if err != nil {
		return nil
	}
	v, _ := lookupNested(values, "languages")
	var dirs []string
	switch list := v.(type) {
	case []any:
		for _, e := range list {
			dirs = append(dirs, fmt.Sprint(e))
		}
	case string:
		dirs = splitList(list)
	}
	for i, dir := range dirs {
		dirs[i] = workspaceRelative(root, dir)
	}
	return dirs
}

// workspaceRelative resolves a path from the workspace config against
// the workspace root.
func workspaceRelative(root, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(root, p)
}

func hasSuffix(name string, suffixes []string) bool {
	for _, s := range suffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// hashFile hashes the regular file at path, named name of kind in the
// digest.
func hashFile(h hash.Hash, kind, path, name string) {
	// safefile.Open never blocks on a named pipe.
	f, err := safefile.Open(path)
	if err != nil {
		fmt.Fprintf(h, "%s %q not a readable regular file\n", kind, name)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() > maxDigestedSpec {
		fmt.Fprintf(h, "%s %q not a readable regular file\n", kind, name)
		return
	}
	fmt.Fprintf(h, "%s %q %d\n", kind, name, st.Size())
	if _, err := io.CopyN(h, f, st.Size()); err != nil {
		fmt.Fprintf(h, "%s %q changed while read\n", kind, name)
	}
}

// FileTrust decides whether file, a workspace file given on the command
// line whose content decides what runs (a bench scenario or run config),
// is trusted: it must lie inside a workspace trusted with `langhost
// trust` whose trust still holds, among the files that trust covers (for
// bench, the YAML files under its bench/ directory). trust_workspace is
// the caller's to check.
func FileTrust(paths Paths, file string) (Trust, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return Trust{}, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return Trust{}, err
	}
	list, err := TrustStore{File: paths.Trust}.List()
	if err != nil {
		return Trust{}, err
	}
	for _, e := range list {
		if !strings.HasPrefix(real, e.Path+string(filepath.Separator)) {
			continue
		}
		t := Trust{Root: e.Path}
		snap, err := TakeSnapshot(paths, e.Path)
		switch {
		case err != nil:
			t.Reason = fmt.Sprintf("the workspace %s it is in cannot be checked: %v", e.Path, err)
		case snap.Digest != e.Digest:
			t.Reason = fmt.Sprintf("the workspace %s it is in changed since it was trusted at %s; review it and run `langhost trust %s` again",
				e.Path, e.TrustedAt.Format(time.RFC3339), e.Path)
		case !slices.Contains(snap.Files, relTo(e.Path, real)):
			t.Reason = fmt.Sprintf("trust of the workspace %s covers only %s/**/*.yaml, not %s", e.Path, BenchDir, relTo(e.Path, real))
		default:
			t.Trusted, t.Reason = true, "in the workspace "+e.Path+", trusted with `langhost trust` at "+e.TrustedAt.Format(time.RFC3339)
		}
		return t, nil
	}
	return Trust{Reason: "it is in no trusted workspace; review it and run `langhost trust DIR` for the workspace it belongs to"}, nil
}

func relTo(root, p string) string {
	if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return p
}
