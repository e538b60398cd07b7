// Package atomicfile writes files so that readers and crashes see the old
// content or the new, never a mix: new content is staged in a hidden file
// beside its target, synced, and renamed over it. ReplaceAll extends this
// to several files that change together, with rollback.
package atomicfile

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// WriteFile replaces the file at path with data, giving it the permission
// bits perm (the umask does not apply). A symlink at path is replaced, not
// followed. On error the file is unchanged and no temporary file is left.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return writeFile(path, data, perm, true)
}

// WriteCache is WriteFile without syncing to disk, for a cache whose
// reader checks each entry (a checksum) and rebuilds one that is missing
// or damaged: readers still see the old content or the new, but a crash
// may lose the write. Syncing costs milliseconds per file, which a cache
// filled on a program's start cannot afford.
func WriteCache(path string, data []byte, perm fs.FileMode) error {
	return writeFile(path, data, perm, false)
}

func writeFile(path string, data []byte, perm fs.FileMode, sync bool) error {
	tmp, err := stageFile(path, ".langhost-new-", data, perm, sync)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	if sync {
		syncDirs([]string{path})
	}
	return nil
}

// Replacement is one file of ReplaceAll.
type Replacement struct {
	Path string // the file to replace, which must be a regular file
	Name string // how messages name the file, e.g. relative to the workspace
	Old  []byte // the content the file must still hold
	New  []byte
}

// Options tune ReplaceAll.
type Options struct {
	// Check, when set, is called for each file before it is read or
	// staged, e.g. to make sure it is still inside the workspace; its
	// error ends ReplaceAll with nothing written.
	Check func(Replacement) error
	// Rename renames a staged file over its target: os.Rename when nil.
	// Tests inject failures through it.
	Rename func(from, to string) error
}

// ReplaceAll replaces the content of every file or of none. Each file must
// still be a regular file (not a symlink, not replaced by a directory)
// holding Old. New contents are staged in temporary files beside their
// targets (written, synced, given the target's permissions) and the
// targets are kept as backups (hard links where the file system allows,
// else copies); then the staged files are renamed over the targets. If a
// rename fails, the files already replaced get their backups back, so
// nothing is half-written; a backup that cannot be put back is left in
// place and named in the error, so nothing is lost.
//
// Errors are *failure.Error: precondition_failed when a file is not as
// expected (nothing was written), internal when a rename failed.
func ReplaceAll(files []Replacement, opts Options) error {
	rename := opts.Rename
	if rename == nil {
		rename = os.Rename
	}
	type staged struct {
		r           Replacement
		tmp, backup string
	}
	var stage []staged
	cleanup := func() {
		for _, s := range stage {
			os.Remove(s.tmp)
			if s.backup != "" {
				os.Remove(s.backup)
			}
		}
	}
	for _, r := range files {
		if opts.Check != nil {
			if err := opts.Check(r); err != nil {
				cleanup()
				return err
			}
		}
		fi, err := os.Lstat(r.Path)
		if err != nil {
			cleanup()
			return failure.Wrap(failure.Precondition, err, "%s; nothing was written", r.Name)
		}
		if !fi.Mode().IsRegular() {
			cleanup()
			return failure.New(failure.Precondition, "%s is not a regular file any more; nothing was written", r.Name)
		}
		cur, err := os.ReadFile(r.Path)
		if err != nil {
			cleanup()
			return failure.Wrap(failure.Precondition, err, "reading %s before writing; nothing was written", r.Name)
		}
		if !bytes.Equal(cur, r.Old) {
			cleanup()
			return failure.New(failure.Precondition, "%s changed on disk since the edit was computed; nothing was written", r.Name)
		}
		tmp, err := stageFile(r.Path, ".langhost-new-", r.New, fi.Mode(), true)
		if err != nil {
			cleanup()
			return failure.Wrap(failure.Precondition, err, "staging %s; nothing was written", r.Name)
		}
		stage = append(stage, staged{r: r, tmp: tmp})
		backup, err := backupFile(r.Path, r.Old, fi.Mode())
		if err != nil {
			cleanup()
			return failure.Wrap(failure.Precondition, err, "backing up %s; nothing was written", r.Name)
		}
		stage[len(stage)-1].backup = backup
	}
	paths := func(ss []staged) []string {
		out := make([]string, len(ss))
		for i, s := range ss {
			out[i] = s.r.Path
		}
		return out
	}
	for i, s := range stage {
		if err := rename(s.tmp, s.r.Path); err != nil {
			var lost []string
			for _, done := range stage[:i] {
				// A backup that cannot be put back stays where it is.
				if rerr := rename(done.backup, done.r.Path); rerr != nil {
					lost = append(lost, fmt.Sprintf("%s (its old content is in %s: %v)", done.r.Name, done.backup, rerr))
				}
			}
			for _, s := range stage[i:] {
				os.Remove(s.tmp)
				os.Remove(s.backup)
			}
			syncDirs(paths(stage[:i]))
			if len(lost) > 0 {
				return failure.Wrap(failure.Internal, err, "writing %s failed, and %d earlier file(s) could not be restored: %s", s.r.Name, len(lost), strings.Join(lost, "; "))
			}
			return failure.Wrap(failure.Internal, err, "writing %s failed; nothing was changed (%d earlier file(s) were restored)", s.r.Name, i)
		}
	}
	for _, s := range stage {
		os.Remove(s.backup)
	}
	syncDirs(paths(stage))
	return nil
}

// stageFile writes content to a new hidden file beside path, with the
// permission bits of mode, and syncs it to disk if sync is set.
func stageFile(path, infix string, content []byte, mode fs.FileMode, sync bool) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+infix+"*")
	if err != nil {
		return "", err
	}
	_, werr := f.Write(content)
	var serr error
	if sync {
		serr = f.Sync()
	}
	err = errors.Join(werr, f.Chmod(mode.Perm()), serr, f.Close())
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// backupFile keeps the current file under a new hidden name beside it: a
// hard link (the same inode, so owner and mode come back too) or, where
// links are not possible, a copy of old, which is its verified content.
func backupFile(path string, old []byte, mode fs.FileMode) (string, error) {
	for range 10 {
		var rnd [8]byte
		rand.Read(rnd[:])
		name := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".langhost-old-"+hex.EncodeToString(rnd[:]))
		err := os.Link(path, name)
		if err == nil {
			return name, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	return stageFile(path, ".langhost-old-", old, mode, true)
}

// syncDirs syncs the directories of the files so that renames survive a
// crash. Errors are ignored: some file systems cannot sync a directory,
// and the renames have happened either way.
func syncDirs(files []string) {
	done := map[string]bool{}
	for _, p := range files {
		dir := filepath.Dir(p)
		if done[dir] {
			continue
		}
		done[dir] = true
		if d, err := os.Open(dir); err == nil {
			d.Sync()
			d.Close()
		}
	}
}
