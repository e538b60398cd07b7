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
// of the files that can grant permissions or define commands, namely its
// .langhost.yaml and the specs in .langhost/languages. Changing, adding or
// removing any of them withdraws the trust until the user trusts again.
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
			t.Reason = fmt.Sprintf("workspace changed since it was trusted at %s (.langhost.yaml or .langhost/languages); review it and run `langhost trust` again",
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

// digest hashes the workspace config (file, with content data) and the
// workspace's spec files, names and contents. Files it cannot read are
// hashed as such, so that the digest never fails and changes when they do.
func digest(root, file string, data []byte) (string, []string) {
	h := sha256.New()
	var files []string
	if file != "" {
		files = append(files, relTo(root, file))
		fmt.Fprintf(h, "config %d\n", len(data))
		h.Write(data)
	}
	dir := WorkspaceSpecDir(root)
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(h, "specs unreadable %q\n", err)
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".yaml") && !strings.HasSuffix(name, ".yml") {
			continue
		}
		files = append(files, relTo(root, filepath.Join(dir, name)))
		hashSpec(h, filepath.Join(dir, name), name)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), files
}

func hashSpec(h hash.Hash, path, name string) {
	// safefile.Open never blocks on a named pipe.
	f, err := safefile.Open(path)
	if err != nil {
		fmt.Fprintf(h, "spec %q not a readable regular file\n", name)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() > maxDigestedSpec {
		fmt.Fprintf(h, "spec %q not a readable regular file\n", name)
		return
	}
	fmt.Fprintf(h, "spec %q %d\n", name, st.Size())
	if _, err := io.CopyN(h, f, st.Size()); err != nil {
		fmt.Fprintf(h, "spec %q changed while read\n", name)
	}
}

func relTo(root, p string) string {
	if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return p
}
