// Package txnlog keeps the records of applied edit transactions, with the
// content each file had before, so that an accepted transaction can be
// undone while its files still hold what it wrote.
//
// The records of a workspace live in the user's state directory (see
// StateDir), not in the workspace: a repository is untrusted and could
// otherwise ship a record whose "before" content an undo would write.
// Records are ordered by a sequence number inside them, assigned under a
// lock, never by file time or id. A record is two files: <id>.before.json
// (the content before, written first) and <id>.json (the record, whose
// presence commits it), both written atomically and owner-only.
//
// Records are still read with bounds and checked, and every path a record
// names goes through the workspace's write check (internal/workspace)
// before anything is read or written: an undo never writes outside the
// workspace nor into git metadata.
package txnlog

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/langhost/langhost/internal/atomicfile"
	"github.com/langhost/langhost/internal/safefile"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Bounds on what is read back: records are the user's, but may be damaged,
// and the current content of a file is the workspace's.
const (
	maxRecordSize = 16 << 20
	maxBeforeSize = 512 << 20
	maxRecords    = 10000
)

// File is one file a transaction changed.
type File struct {
	Path   string `json:"path"`             // workspace-relative, "/" separators
	Before string `json:"before,omitempty"` // "sha256:<hex>" of the content before; "" = the transaction created the file
	After  string `json:"after,omitempty"`  // of the content written; "" = the transaction deleted the file
}

// Record is one applied transaction.
type Record struct {
	ID        string            `json:"id"`
	Seq       uint64            `json:"seq"` // orders the records of a workspace: later records have larger ones
	Time      time.Time         `json:"time"`
	Tool      string            `json:"tool"`
	Operation string            `json:"operation"`
	Trace     []string          `json:"trace"`
	Files     []File            `json:"files"`
	Delta     *diagnostic.Delta `json:"delta,omitempty"`
	UndoneBy  string            `json:"undone_by,omitempty"`
	Undoes    string            `json:"undoes,omitempty"` // for an undo: the id of the record it undid

	dir string // the record directory it was read from; "" is the log's own
}

// Operations of the records Undo and Redo write: an undo of an edit, and
// an undo of an undo.
const (
	UndoOperation = "undo"
	RedoOperation = "redo"
)

// Hash is the form of a content hash in records and previews:
// "sha256:<hex>".
func Hash(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// NewID returns a new record id. Ids sort by time to the microsecond; the
// random suffix keeps ids of one microsecond apart.
func NewID() string {
	var rnd [4]byte
	rand.Read(rnd[:])
	t := time.Now().UTC()
	return fmt.Sprintf("%s%06d-%s", t.Format("20060102T150405"), t.Nanosecond()/1000, hex.EncodeToString(rnd[:]))
}

// validID reports whether id is 1 to 64 ASCII letters, digits and '-', not
// starting with '-'. A loop, not a regexp: the {0,63} repetition compiled at
// start-up cost every run of the binary over 700 allocations.
func validID(id string) bool {
	if id == "" || len(id) > 64 || id[0] == '-' {
		return false
	}
	for _, c := range []byte(id) {
		if c != '-' && (c < '0' || c > '9') && (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') {
			return false
		}
	}
	return true
}

func checkID(id string) error {
	if !validID(id) {
		return &failure.Error{Code: failure.InvalidInput, Field: "id",
			Message: fmt.Sprintf("%q is not a transaction id (letters, digits and '-', as `langhost undo --list` shows them)", id)}
	}
	return nil
}

// log is the record directory of one workspace.
type log struct {
	ws  *workspace.Root
	dir string // absolute, in the user's state directory
	// other is the workspace's record directory in the default state
	// directory when XDG_STATE_HOME chose dir ("" if none): read too.
	other string
}

// open finds the record directory of the workspace root; with create, it
// is made (owner-only) if missing.
func open(root string, create bool) (*log, error) {
	ws, err := workspace.New(root)
	if err != nil {
		return nil, err
	}
	dir, err := logDir(ws.Dir())
	if err != nil {
		return nil, err
	}
	if create {
		if err := makeLogDir(dir, ws.Dir()); err != nil {
			return nil, err
		}
	}
	return &log{ws: ws, dir: dir, other: otherLogDir(ws.Dir(), dir)}, nil
}

// Location returns the directory that holds the records of the workspace
// root, for messages.
func Location(root string) (string, error) {
	ws, err := workspace.New(root)
	if err != nil {
		return "", err
	}
	return logDir(ws.Dir())
}

// lock takes the record directory's lock, which serialises saving (the
// sequence number) and undoing (two undos of one transaction).
// With two directories both are locked, in a fixed order.
func (l *log) lock() (func(), error) {
	dirs := l.dirs()
	slices.Sort(dirs)
	var unlocks []func()
	unlockAll := func() {
		for _, u := range slices.Backward(unlocks) {
			u()
		}
	}
	for _, d := range dirs {
		unlock, err := lockDir(d)
		if err != nil {
			unlockAll()
			return nil, failure.Wrap(failure.Precondition, err, "locking the transaction records")
		}
		unlocks = append(unlocks, unlock)
	}
	return unlockAll, nil
}

// dirs are the record directories read: its own first.
func (l *log) dirs() []string {
	if l.other == "" {
		return []string{l.dir}
	}
	return []string{l.dir, l.other}
}

func (l *log) recordPath(id string) string { return filepath.Join(l.dir, id+".json") }
func (l *log) beforePath(id string) string { return filepath.Join(l.dir, id+".before.json") }

// dirOf is the directory rec was read from.
func (l *log) dirOf(rec *Record) string { return cmp.Or(rec.dir, l.dir) }

// Save stores rec and the content its files had before (by record path),
// for Undo. An empty rec.ID or zero rec.Time is filled in, and rec.Seq is
// set. Every path must be a clean workspace-relative path that langhost
// may write (not git metadata, not .langhost).
func Save(root string, rec *Record, before map[string][]byte) error {
	l, err := open(root, true)
	if err != nil {
		return err
	}
	unlock, err := l.lock()
	if err != nil {
		return err
	}
	defer unlock()
	return l.save(rec, before)
}

func (l *log) save(rec *Record, before map[string][]byte) error {
	if rec.ID == "" {
		rec.ID = NewID()
	}
	if err := checkID(rec.ID); err != nil {
		return err
	}
	if rec.Time.IsZero() {
		rec.Time = time.Now().UTC()
	}
	if rec.Trace == nil {
		rec.Trace = []string{}
	}
	known := map[string]File{}
	for i, f := range rec.Files {
		if err := l.checkPath(fmt.Sprintf("files[%d].path", i), f.Path); err != nil {
			return err
		}
		known[f.Path] = f
	}
	for p, b := range before {
		f, ok := known[p]
		if !ok {
			return failure.New(failure.Internal, "transaction %s: content before given for %s, which is not one of its files", rec.ID, p)
		}
		if f.Before != Hash(b) {
			return failure.New(failure.Internal, "transaction %s: the content before given for %s does not have the hash %s", rec.ID, p, f.Before)
		}
	}
	for _, f := range rec.Files {
		if _, ok := before[f.Path]; f.Before != "" && !ok {
			return failure.New(failure.Internal, "transaction %s: no content before for %s", rec.ID, f.Path)
		}
	}
	if _, err := os.Lstat(l.recordPath(rec.ID)); err == nil {
		return failure.New(failure.Precondition, "transaction %s exists already", rec.ID)
	}
	seq, err := l.nextSeq()
	if err != nil {
		return err
	}
	rec.Seq = seq
	b, err := json.Marshal(before)
	if err != nil {
		return failure.Wrap(failure.Internal, err, "encoding transaction %s", rec.ID)
	}
	if err := atomicfile.WriteFile(l.beforePath(rec.ID), b, 0o600); err != nil {
		return failure.Wrap(failure.Precondition, err, "recording transaction %s", rec.ID)
	}
	if err := l.writeRecord(rec); err != nil {
		os.Remove(l.beforePath(rec.ID))
		return err
	}
	return nil
}

func (l *log) writeRecord(rec *Record) error {
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return failure.Wrap(failure.Internal, err, "encoding transaction %s", rec.ID)
	}
	if err := atomicfile.WriteFile(filepath.Join(l.dirOf(rec), rec.ID+".json"), append(b, '\n'), 0o600); err != nil {
		return failure.Wrap(failure.Precondition, err, "recording transaction %s", rec.ID)
	}
	return nil
}

// checkPath refuses a record path that is not clean, relative, inside the
// workspace and writable there: restoring it must not write git metadata.
func (l *log) checkPath(key, p string) error {
	if err := checkClean(key, p); err != nil {
		return err
	}
	_, err := l.ws.ResolveCreate(key, filepath.FromSlash(p))
	return err
}

// List returns the records of the workspace, newest first. A record that
// cannot be read is skipped, so one damaged file does not hide the rest.
func List(root string) ([]*Record, error) {
	l, err := open(root, false)
	if err != nil {
		return nil, err
	}
	return l.list()
}

func (l *log) list() ([]*Record, error) {
	var lists [][]*Record
	for _, d := range l.dirs() {
		recs, err := l.listDir(d)
		if err != nil {
			return nil, err
		}
		lists = append(lists, recs)
	}
	if len(lists) == 1 {
		return lists[0], nil
	}
	return mergeNewestFirst(lists), nil
}

// listDir returns the records of one directory, newest (by sequence
// number) first.
func (l *log) listDir(dir string) ([]*Record, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return []*Record{}, nil
	}
	if err != nil {
		return nil, failure.Wrap(failure.Precondition, err, "reading the transaction records")
	}
	recs := []*Record{}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || strings.HasSuffix(id, ".before") || checkID(id) != nil {
			continue
		}
		if len(recs) == maxRecords {
			break
		}
		rec, err := loadFrom(dir, id)
		if err != nil {
			continue
		}
		if dir != l.dir {
			rec.dir = dir
		}
		recs = append(recs, rec)
	}
	slices.SortFunc(recs, func(a, b *Record) int {
		return cmp.Or(cmp.Compare(b.Seq, a.Seq), strings.Compare(b.ID, a.ID))
	})
	return recs, nil
}

// mergeNewestFirst merges record lists of different directories, each
// newest first by its own sequence numbers, by time: sequence numbers of
// two directories do not compare, and the order within each is kept.
func mergeNewestFirst(lists [][]*Record) []*Record {
	var out []*Record
	for {
		best := -1
		for i, recs := range lists {
			if len(recs) > 0 && (best < 0 || recs[0].Time.After(lists[best][0].Time)) {
				best = i
			}
		}
		if best < 0 {
			return out
		}
		out = append(out, lists[best][0])
		lists[best] = lists[best][1:]
	}
}

// Load returns the record id.
func Load(root, id string) (*Record, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	l, err := open(root, false)
	if err != nil {
		return nil, err
	}
	rec, err := l.load(id)
	if failure.CodeOf(err) != failure.NotFound {
		return rec, err
	}
	// Not a whole id: an abbreviation, resolved against the list.
	recs, err := l.list()
	if err != nil {
		return nil, err
	}
	if id, err = resolve(recs, id); err != nil {
		return nil, err
	}
	return l.load(id)
}

func (l *log) load(id string) (*Record, error) {
	for _, d := range l.dirs() {
		rec, err := loadFrom(d, id)
		if failure.CodeOf(err) == failure.NotFound {
			continue
		}
		if rec != nil && d != l.dir {
			rec.dir = d
		}
		return rec, err
	}
	return nil, &failure.Error{Code: failure.NotFound, Field: "id", Message: fmt.Sprintf("no transaction %s in this workspace's records", id)}
}

func loadFrom(dir, id string) (*Record, error) {
	b, err := safefile.ReadRegular(filepath.Join(dir, id+".json"), maxRecordSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &failure.Error{Code: failure.NotFound, Field: "id", Message: fmt.Sprintf("no transaction %s in this workspace's records", id)}
	}
	if err != nil {
		return nil, failure.Wrap(failure.Precondition, err, "reading transaction %s", id)
	}
	return parseRecord(id, b)
}

func (l *log) loadBefore(rec *Record) (map[string][]byte, error) {
	id := rec.ID
	b, err := safefile.ReadRegular(filepath.Join(l.dirOf(rec), id+".before.json"), maxBeforeSize)
	if err != nil {
		return nil, failure.Wrap(failure.Precondition, err, "reading the content before transaction %s", id)
	}
	var before map[string][]byte
	if err := json.Unmarshal(b, &before); err != nil {
		return nil, failure.Wrap(failure.Precondition, err, "the content before transaction %s is damaged", id)
	}
	return before, nil
}

// Undo restores the content the files of transaction id had before it, if
// every file still holds what the transaction wrote; otherwise nothing is
// written and the error (precondition_failed) names the files that
// changed. Undoing an undo redoes. An empty id undoes the newest
// transaction that is not undone and is an edit or a redo, so repeated
// undos walk back through the edits and never redo; when none is left the
// error (not_found) says what Redo would redo. The undo is recorded as a
// new record, which is returned; the undone record gets UndoneBy.
func Undo(ctx context.Context, root, id string) (*Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if id != "" {
		if err := checkID(id); err != nil {
			return nil, err
		}
	}
	l, recs, byID, unlock, err := openLocked(root)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var rec *Record
	if id == "" {
		for _, r := range recs {
			if r.UndoneBy == "" && editLike(r, byID) {
				rec = r
				break
			}
		}
		if rec == nil {
			return nil, nothingToUndo(recs, byID, root)
		}
	} else {
		if id, err = resolve(recs, id); err != nil {
			return nil, err
		}
		if rec, err = l.load(id); err != nil {
			return nil, err
		}
	}
	changes, err := l.plan(rec)
	if err != nil {
		return nil, err
	}
	return l.apply(ctx, rec, changes, editLike(rec, byID))
}

// Redo undoes the newest undo that is not undone itself and whose files
// still hold what it wrote: it applies again the edit that undo undid.
func Redo(ctx context.Context, root string) (*Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l, recs, byID, unlock, err := openLocked(root)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var first error
	for _, r := range recs {
		if r.UndoneBy != "" || editLike(r, byID) {
			continue
		}
		changes, err := l.plan(r)
		if err == nil {
			return l.apply(ctx, r, changes, false)
		}
		if first == nil {
			first = err
		}
	}
	if first != nil {
		return nil, first
	}
	msg := "nothing to redo: no undo that is not redone already"
	if note := WorkspaceRecordsNote(l.ws.Dir()); note != "" {
		msg += "; " + note
	}
	return nil, failure.New(failure.NotFound, "%s", msg)
}

// openLocked opens the records of root and takes their lock, for an undo
// or redo: it returns them newest first and by id, and the unlock.
func openLocked(root string) (*log, []*Record, map[string]*Record, func(), error) {
	l, err := open(root, true)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	unlock, err := l.lock()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	recs, err := l.list()
	if err != nil {
		unlock()
		return nil, nil, nil, nil, err
	}
	byID := make(map[string]*Record, len(recs))
	for _, r := range recs {
		byID[r.ID] = r
	}
	return l, recs, byID, unlock, nil
}

// nothingToUndo is the error of an undo with no id when every edit is
// undone: it names what Redo would redo instead of doing it.
func nothingToUndo(recs []*Record, byID map[string]*Record, root string) error {
	err := failure.New(failure.NotFound, "no transaction to undo")
	for _, r := range recs {
		if r.UndoneBy == "" && !editLike(r, byID) {
			undone := byID[r.Undoes]
			what := r.Undoes
			if undone != nil {
				what = fmt.Sprintf("%s (%s: %s)", undone.ID, undone.Tool, strings.Join(paths(undone.Files), ", "))
			}
			err.Message = fmt.Sprintf("no transaction to undo (every edit is undone); `langhost redo` would redo %s, undone by %s", what, r.ID)
			err.Details = map[string]any{"redo": r.ID, "redoes": r.Undoes}
			break
		}
	}
	if note := WorkspaceRecordsNote(root); note != "" {
		err.Message += "; " + note
	}
	return err
}

func paths(files []File) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Path
	}
	return out
}

// plan checks that every file of rec still holds what rec wrote and may
// be written, and returns the changes that restore what it had before.
func (l *log) plan(rec *Record) ([]Change, error) {
	if rec.UndoneBy != "" {
		return nil, &failure.Error{Code: failure.Precondition, Field: "id",
			Message: fmt.Sprintf("transaction %s was undone already by %s", rec.ID, rec.UndoneBy)}
	}
	before, err := l.loadBefore(rec)
	if err != nil {
		return nil, err
	}
	changes := make([]Change, 0, len(rec.Files))
	var changed []string
	for i, f := range rec.Files {
		key := fmt.Sprintf("files[%d].path", i)
		if err := l.checkPath(key, f.Path); err != nil {
			return nil, failure.Wrap(failure.CodeOf(err), err, "transaction %s; nothing was written", rec.ID)
		}
		ch, err := l.current(f)
		if err != nil {
			return nil, err
		}
		if Hash(ch.Old) != f.After && (ch.Exists || f.After != "") {
			changed = append(changed, f.Path)
			continue
		}
		if f.Before == "" {
			ch.Delete = true
		} else {
			b, ok := before[f.Path]
			if !ok || Hash(b) != f.Before {
				return nil, failure.New(failure.Precondition, "transaction %s is damaged: the content of %s before it is missing or does not match %s; nothing was written", rec.ID, f.Path, f.Before)
			}
			ch.New = b
		}
		changes = append(changes, ch)
	}
	if len(changed) > 0 {
		err := failure.New(failure.Precondition, "cannot undo transaction %s: %s changed since it was applied; nothing was written", rec.ID, strings.Join(changed, ", "))
		err.Details = map[string]any{"changed": changed, "transaction_id": rec.ID}
		return nil, err
	}
	return changes, nil
}

// apply writes changes, records them as the undo of rec (a redo when rec
// is an undo) and marks rec undone. The caller holds the lock.
func (l *log) apply(ctx context.Context, rec *Record, changes []Change, edit bool) (*Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := Write(l.ws, changes, nil); err != nil {
		return nil, err
	}
	op := UndoOperation
	if !edit {
		op = RedoOperation
	}
	undo := &Record{ID: NewID(), Time: time.Now().UTC(), Tool: rec.Tool, Operation: op,
		Trace: []string{op + " " + rec.ID}, Files: make([]File, len(rec.Files)), Undoes: rec.ID}
	after := map[string][]byte{}
	for i, f := range rec.Files {
		undo.Files[i] = File{Path: f.Path, Before: f.After, After: f.Before}
		if f.After != "" {
			after[f.Path] = changes[i].Old
		}
	}
	if rec.Delta != nil {
		undo.Delta = &diagnostic.Delta{New: rec.Delta.Fixed, Fixed: rec.Delta.New, Unchanged: rec.Delta.Unchanged}
	}
	if err := l.save(undo, after); err != nil {
		return nil, fmt.Errorf("transaction %s was undone, but recording the undo failed: %w", rec.ID, err)
	}
	rec.UndoneBy = undo.ID
	if err := l.writeRecord(rec); err != nil {
		return nil, fmt.Errorf("transaction %s was undone by %s, but marking it undone failed: %w", rec.ID, undo.ID, err)
	}
	return undo, nil
}

// editLike reports whether r changes the files the way an edit does: it
// is an edit, or it undoes a record that is not edit-like (a redo).
// Chains are followed a bounded number of steps, as records may be
// damaged and form a loop.
func editLike(r *Record, byID map[string]*Record) bool {
	like := true
	for range 1000 {
		if r.Undoes == "" {
			return like
		}
		next := byID[r.Undoes]
		if next == nil {
			return !like // undoes a record that is gone: take it for an undo
		}
		r, like = next, !like
	}
	return false
}

// current reads the file of f as it is now.
func (l *log) current(f File) (Change, error) {
	p, err := l.ws.ResolveCreate("path", filepath.FromSlash(f.Path))
	if err != nil {
		return Change{}, err
	}
	ch := Change{Path: p, Name: f.Path}
	b, err := safefile.ReadRegular(p, maxBeforeSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return Change{}, failure.Wrap(failure.Precondition, err, "reading %s", f.Path)
	default:
		ch.Old, ch.Exists = b, true
	}
	return ch, nil
}

// Discard removes the record id, for a transaction whose write failed
// after it was recorded.
func Discard(root, id string) error {
	if err := checkID(id); err != nil {
		return err
	}
	l, err := open(root, false)
	if err != nil {
		return err
	}
	err = os.Remove(l.recordPath(id))
	if rerr := os.Remove(l.beforePath(id)); err == nil && !errors.Is(rerr, fs.ErrNotExist) {
		err = rerr
	}
	return err
}
