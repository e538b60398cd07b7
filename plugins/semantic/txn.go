package semantic

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/langhost/langhost/internal/txnlog"
	"github.com/langhost/langhost/plugins/lsp"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Policies of a transaction: which new diagnostics reject it.
const (
	policyNewErrors   = "new_errors" // the default
	policyNewWarnings = "new_warnings"
	policyNever       = "never"
)

var policies = []string{policyNewErrors, policyNewWarnings, policyNever}

func checkPolicy(p string) (string, error) {
	switch p {
	case "":
		return policyNewErrors, nil
	case policyNewErrors, policyNewWarnings, policyNever:
		return p, nil
	}
	return "", fieldErr(failure.InvalidInput, "policy", "unknown policy %q (want %s)", p, strings.Join(policies, ", "))
}

// txn is one edit on its way to disk: propose -> validate preconditions
// -> apply in memory (overlays in the server) -> diagnostics before and
// after -> accept or reject by policy -> persist and record.
type txn struct {
	Tool, Operation string
	Changes         []fileChange
	Expect          expectation
	Policy          string // new_errors (default), new_warnings or never
	DryRun          bool
	Trace           []string
	// Propose, when set, computes Changes while the files of Lock (real
	// paths) are locked, so that concurrent transactions on one file each
	// see the result of the one before.
	Propose func(ctx context.Context) ([]fileChange, error)
	Lock    []string
	// Postcondition, when set, checks that the edit did what it promised,
	// on the server's view of the new text: after the overlays are applied,
	// before the policy and before anything is written (dry run too).
	// overlays holds the document of each changed file the server checks,
	// by real path. A non-empty reason fails the transaction with
	// postcondition_failed; err is for a check that could not be made.
	Postcondition func(ctx context.Context, overlays map[string]*document) (reason string, err error)
}

// TxnResult is the outcome of a transaction.
type TxnResult struct {
	ID       string           `json:"transaction_id,omitempty" jsonschema:"id of the transaction record (for langhost undo and transactions show)"`
	Applied  bool             `json:"applied"`
	DryRun   bool             `json:"dry_run,omitempty"`
	Files    []FileDiff       `json:"files"`
	Diff     string           `json:"diff"`
	Delta    diagnostic.Delta `json:"delta" jsonschema:"diagnostics the edit adds (new), removes (fixed) and keeps (unchanged)"`
	Rejected string           `json:"rejected,omitempty" jsonschema:"why the policy rejects the edit"`
}

// transact runs a transaction. A rejected one fails with
// diagnostic_regression carrying the TxnResult in details.transaction;
// disk is untouched and the server sees the files as they are on disk.
func (c *call) transact(ctx context.Context, tx *txn) (*TxnResult, error) {
	policy, err := checkPolicy(tx.Policy)
	if err != nil {
		return nil, err
	}
	keys := tx.Lock
	if keys == nil {
		for _, ch := range tx.Changes {
			keys = append(keys, ch.path)
		}
	}
	unlock, err := c.s.txnLocks.lock(ctx, keys)
	if err != nil {
		return nil, err
	}
	defer unlock()

	changes := tx.Changes
	if tx.Propose != nil {
		if changes, err = tx.Propose(ctx); err != nil {
			return nil, err
		}
		if missing := unlocked(changes, keys); missing != "" {
			return nil, failure.New(failure.Internal, "%s: the edit touches %s, which the transaction did not lock", tx.Operation, missing)
		}
	}
	if tx.Expect != nil {
		if err := tx.Expect.check(c.e, changes); err != nil {
			return nil, err
		}
	}
	if err := c.preconditions(changes); err != nil {
		return nil, err
	}
	res := &TxnResult{DryRun: tx.DryRun, Delta: diagnostic.Diff(nil, nil)}
	res.Files, res.Diff = previews(changes)
	changes = slices.DeleteFunc(slices.Clone(changes), func(ch fileChange) bool { return !ch.create && string(ch.old) == string(ch.new) })
	if len(changes) == 0 {
		return res, nil // nothing to write, nothing to record
	}
	if !tx.DryRun && c.e.narrow != "" {
		// The server cannot check what the change does to the projects
		// it did not load.
		return nil, failure.New(failure.Precondition, "%s refused: %s", tx.Operation, c.e.narrow)
	}
	if !tx.DryRun && !c.confirmed {
		return nil, failure.New(failure.Precondition, "%s writes %d file(s) and was not confirmed: pass --yes on the CLI (over MCP, the client's approval confirms), or dry_run to preview", tx.Operation, len(changes))
	}

	accept := false
	delta, overlays, finish, err := c.inMemory(ctx, changes)
	defer func() { finish(accept) }()
	if err != nil {
		return nil, err
	}
	res.Delta = delta
	if tx.Postcondition != nil {
		reason, err := tx.Postcondition(ctx, overlays)
		if err != nil {
			return nil, err
		}
		if reason != "" {
			err := failure.New(failure.Postcondition, "%s did not do what it promised and nothing was written: %s", tx.Operation, reason)
			err.Details = map[string]any{"transaction": res}
			return nil, err
		}
	}
	res.Rejected = rejects(policy, delta)
	if tx.DryRun {
		return res, nil
	}
	if res.Rejected != "" {
		err := failure.New(failure.DiagnosticRegression, "%s was rejected and nothing was written: %s", tx.Operation, res.Rejected)
		err.Details = map[string]any{"transaction": res}
		return nil, err
	}
	if c.s.beforePersist != nil {
		c.s.beforePersist()
	}
	if err := c.persist(ctx, tx, res, changes); err != nil {
		return nil, err
	}
	accept = true
	res.Applied = true
	return res, nil
}

// unlocked returns a file of changes that is not among keys, or "".
func unlocked(changes []fileChange, keys []string) string {
	for _, ch := range changes {
		if !slices.Contains(keys, ch.path) {
			return ch.rel
		}
	}
	return ""
}

// rejects says why policy rejects delta, or "".
func rejects(policy string, delta diagnostic.Delta) string {
	severity := diagnostic.Error
	switch policy {
	case policyNever:
		return ""
	case policyNewWarnings:
		severity = diagnostic.Warning
	}
	var worse []string
	for _, d := range delta.New {
		if diagnostic.Rank(d.Severity) <= diagnostic.Rank(severity) {
			worse = append(worse, d.String())
		}
	}
	if len(worse) == 0 {
		return ""
	}
	const shown = 3
	n, more := len(worse), ""
	if n > shown {
		more = fmt.Sprintf(" and %d more", n-shown)
		worse = worse[:shown]
	}
	return fmt.Sprintf("it adds %d diagnostic(s) at or above %s (policy %s): %s%s", n, severity, policy, strings.Join(worse, "; "), more)
}

// preconditions checks that every file is still what the edit was
// computed on: an existing regular file inside the workspace holding the
// old text, or, for a file to create, a name inside it that is free.
func (c *call) preconditions(changes []fileChange) error {
	for _, ch := range changes {
		if ch.create {
			p, err := c.e.ws.ResolveCreate("file", ch.path)
			if err != nil {
				return err
			}
			if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
				return fieldErr(failure.Precondition, "file", "%s exists now; nothing was written", ch.rel)
			}
			continue
		}
		real, err := c.e.ws.ResolveWrite("file", ch.path)
		if err != nil {
			return err
		}
		if real != ch.path {
			return fieldErr(failure.Precondition, "file", "%s now leads to %s; nothing was written", ch.rel, real)
		}
		cur, _, err := readRegular(ch.path, 0)
		if err != nil {
			return failure.Wrap(failure.Precondition, err, "reading %s", ch.rel)
		}
		if string(cur) != string(ch.old) {
			return fieldErr(failure.Precondition, "file", "%s changed on disk since the edit was computed; nothing was written", ch.rel)
		}
	}
	return nil
}

// persist records the transaction, then writes its files. The record
// comes first: if the write fails it is discarded, and a record whose
// files do not hold its after-hashes could never be undone anyway.
func (c *call) persist(ctx context.Context, tx *txn, res *TxnResult, changes []fileChange) error {
	tool := tx.Tool
	if tool == "" {
		tool = c.e.lang + "." + tx.Operation
	}
	rec := &txnlog.Record{ID: txnlog.NewID(), Tool: tool, Operation: tx.Operation, Trace: tx.Trace, Delta: &res.Delta}
	if rec.Trace == nil {
		rec.Trace = []string{tx.Operation}
	}
	before := map[string][]byte{}
	for _, ch := range changes {
		f := txnlog.File{Path: ch.rel, After: txnlog.Hash(ch.new)}
		if !ch.create {
			f.Before = txnlog.Hash(ch.old)
			before[ch.rel] = ch.old
		}
		rec.Files = append(rec.Files, f)
	}
	if err := txnlog.Save(c.e.root, rec, before); err != nil {
		return failure.Wrap(failure.CodeOf(err), err, "recording the transaction; nothing was written")
	}
	if err := writeAtomically(c.e.ws, changes, os.Rename); err != nil {
		if derr := txnlog.Discard(c.e.root, rec.ID); derr != nil {
			c.e.log.Warn("discarding the record of a transaction that was not written", "id", rec.ID, "error", derr)
		}
		return err
	}
	res.ID = rec.ID
	var written, created []string
	for _, ch := range changes {
		if ch.create {
			created = append(created, ch.path)
		} else {
			written = append(written, ch.path)
		}
	}
	// The write is done; telling the server is best effort from here.
	ctx = context.WithoutCancel(ctx)
	if err := c.s.filesWritten(ctx, written); err != nil {
		c.e.log.Warn("telling the server about written files", "error", err)
	}
	if len(created) > 0 {
		events := make([]lsp.FileEvent, len(created))
		for i, p := range created {
			events[i] = lsp.FileEvent{URI: lsp.URIFromPath(p), Type: lsp.FileCreated}
		}
		if err := c.s.srv.Notify(ctx, "workspace/didChangeWatchedFiles", map[string]any{"changes": events}); err != nil {
			c.e.log.Warn("telling the server about created files", "error", err)
		}
	}
	return nil
}
