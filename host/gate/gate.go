// Package gate applies file writes as transactions for languages that no
// language server checks: the language spec's gate tool (its check or
// build tool, named by `gate:`) runs on a private copy of the workspace,
// once on the current text and once with the edit applied; the edit is
// written only when the diagnostics delta passes the policy. Every
// applied write, gated or not, is written all or nothing and recorded
// for undo (internal/txnlog).
package gate

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/langhost/langhost/host/exectool"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/internal/txnlog"
	"github.com/langhost/langhost/internal/unidiff"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Policies: which new diagnostics reject an edit.
const (
	NewErrors   = "new_errors" // the default
	NewWarnings = "new_warnings"
	Never       = "never"
)

// Policies lists the valid policies, the default first.
var Policies = []string{NewErrors, NewWarnings, Never}

// CheckPolicy returns the policy p names ("" is the default) or an
// invalid_input error naming the input key.
func CheckPolicy(key, p string) (string, error) {
	switch p {
	case "":
		return NewErrors, nil
	case NewErrors, NewWarnings, Never:
		return p, nil
	}
	return "", &failure.Error{Code: failure.InvalidInput, Field: key,
		Message: fmt.Sprintf("unknown policy %q: use %s", p, strings.Join(Policies, ", "))}
}

// Edit is the new content of one file.
type Edit struct {
	Path   string // workspace-relative, "/" separated
	Abs    string // the file in the workspace (real path when it exists)
	Exists bool   // false: the edit creates the file
	Old    []byte // the content read, which the file must still hold when written
	New    []byte
}

// Request is one write.
type Request struct {
	Tool      string // the registered tool asking, for the record
	Operation string // e.g. write_file
	Language  string // language of the gate tool
	// Gate is the spec tool that checks the edit; nil writes unchecked.
	Gate   *spec.Tool
	Edits  []Edit
	Policy string // NewErrors when ""
	DryRun bool
	// WorkspaceCode is the user's consent to run code the workspace
	// controls (registry.Call.WorkspaceCode): a gate tool that runs some
	// (cargo check runs build.rs) checks the edit only with it.
	WorkspaceCode bool
}

// Options are the host settings of a gate.
type Options struct {
	Workspace *workspace.Root
	// Exec are the settings gate tools run with; its Workspace is
	// replaced by the copy.
	Exec exectool.Options
	// Copy bounds the copy of the workspace; DefaultCopyLimits if zero.
	Copy CopyLimits
}

// Result is the outcome of a write.
type Result struct {
	Gate     string `json:"gate"` // the gate tool's id; "" when none applied
	Note     string `json:"note,omitempty"`
	Policy   string `json:"policy"`
	Accepted bool   `json:"accepted"`
	DryRun   bool   `json:"dry_run,omitempty"`
	Written  bool   `json:"written"`
	Diff     string `json:"diff"`
	// Before and After count the gate tool's diagnostics on the text
	// before and after the edit.
	Before        *diagnostic.Counts `json:"before,omitempty"`
	After         *diagnostic.Counts `json:"after,omitempty"`
	Delta         *diagnostic.Delta  `json:"delta,omitempty"`
	TransactionID string             `json:"transaction_id,omitempty"`
	Files         []txnlog.File      `json:"files"`
}

// Run checks the edits with the gate tool (if any) and, when the policy
// accepts them and this is no dry run, writes them and records the
// transaction. A rejected edit is a diagnostic_regression error whose
// details hold the result under "transaction"; the workspace is not
// touched.
func Run(ctx context.Context, opts Options, req Request) (*Result, error) {
	policy, err := CheckPolicy("policy", req.Policy)
	if err != nil {
		return nil, err
	}
	if len(req.Edits) == 0 {
		return nil, failure.New(failure.InvalidInput, "nothing to write")
	}
	res := &Result{Policy: policy, DryRun: req.DryRun, Files: files(req.Edits)}
	for _, e := range req.Edits {
		res.Diff += unifiedDiff(e.Path, string(e.Old), string(e.New))
	}
	var trace []string
	if req.Gate == nil {
		res.Note = "no gate applied: no language server and no gate tool check this file, so it was written unchecked"
		res.Accepted = true
		trace = append(trace, "no gate")
	} else {
		res.Gate = req.Gate.ID
		if code := req.Gate.RunsWorkspaceCode(); code != "" && !req.WorkspaceCode {
			return nil, &failure.Error{Code: failure.Precondition, Field: "workspace_code",
				Message: fmt.Sprintf("%s checks %s with %s, which runs code the workspace controls (%s), and this workspace is not trusted: "+
					"run `langhost trust` to trust it, or pass --allow-workspace-code to allow it for this call", req.Tool, req.Edits[0].Path, req.Gate.ID, code)}
		}
		before, after, err := check(ctx, opts, req)
		if err != nil {
			return nil, err
		}
		delta := diagnostic.Diff(before, after)
		cb, ca := diagnostic.Count(before), diagnostic.Count(after)
		res.Before, res.After, res.Delta = &cb, &ca, &delta
		res.Accepted = accepts(policy, delta)
		trace = append(trace,
			fmt.Sprintf("gate %s before: %d error(s), %d warning(s)", req.Gate.ID, cb.Error, cb.Warning),
			fmt.Sprintf("gate %s after: %d error(s), %d warning(s)", req.Gate.ID, ca.Error, ca.Warning),
			fmt.Sprintf("delta: %d new, %d fixed; policy %s", len(delta.New), len(delta.Fixed), policy))
		if !res.Accepted {
			bad := offending(policy, delta)
			e := failure.New(failure.DiagnosticRegression,
				"%s rejected the edit of %s: it adds %d diagnostic(s) that policy %s forbids (first: %s); nothing was written",
				req.Gate.ID, names(req.Edits), len(bad), policy, bad[0])
			e.Details = map[string]any{"transaction": res}
			return nil, e
		}
	}
	if req.DryRun {
		return res, nil
	}
	id, err := Commit(opts.Workspace, req.Tool, req.Operation, append(trace, "accepted"), req.Edits, res.Delta)
	if err != nil {
		return nil, err
	}
	res.Written, res.TransactionID = true, id
	return res, nil
}

// accepts applies the policy to a delta.
func accepts(policy string, d diagnostic.Delta) bool {
	return policy == Never || !d.Worse(threshold(policy))
}

// threshold is the least severity of a new diagnostic the policy rejects.
func threshold(policy string) string {
	if policy == NewWarnings {
		return diagnostic.Warning
	}
	return diagnostic.Error
}

// offending are the new diagnostics the policy rejects.
func offending(policy string, d diagnostic.Delta) []diagnostic.Diagnostic {
	var out []diagnostic.Diagnostic
	for _, n := range d.New {
		if diagnostic.Rank(n.Severity) <= diagnostic.Rank(threshold(policy)) {
			out = append(out, n)
		}
	}
	return out
}

// Commit writes the edits all or nothing, each file checked to still
// hold the content it was read with, and records the transaction. It
// returns the transaction id.
func Commit(ws *workspace.Root, tool, operation string, trace []string, edits []Edit, delta *diagnostic.Delta) (string, error) {
	changes := make([]txnlog.Change, len(edits))
	before := map[string][]byte{}
	for i, e := range edits {
		changes[i] = txnlog.Change{Path: e.Abs, Name: e.Path, Exists: e.Exists, Old: e.Old, New: e.New}
		if e.Exists {
			before[e.Path] = e.Old
		}
	}
	if err := txnlog.Write(ws, changes, nil); err != nil {
		return "", err
	}
	rec := &txnlog.Record{Tool: tool, Operation: operation, Trace: trace, Files: files(edits), Delta: delta}
	if err := txnlog.Save(ws.Dir(), rec, before); err != nil {
		return "", failure.Wrap(failure.CodeOf(err), err, "%s was written, but recording the transaction failed (it cannot be undone with langhost undo)", names(edits))
	}
	return rec.ID, nil
}

func files(edits []Edit) []txnlog.File {
	out := make([]txnlog.File, len(edits))
	for i, e := range edits {
		out[i] = txnlog.File{Path: e.Path, After: txnlog.Hash(e.New)}
		if e.Exists {
			out[i].Before = txnlog.Hash(e.Old)
		}
	}
	return out
}

func names(edits []Edit) string {
	s := make([]string, len(edits))
	for i, e := range edits {
		s[i] = e.Path
	}
	return strings.Join(s, ", ")
}

// unifiedDiff is a unified diff of a and b labelled a/path and b/path.
func unifiedDiff(path, a, b string) string {
	return unidiff.Diff("a/"+path, "b/"+path, a, b)
}

// check runs the gate tool on a copy of the workspace before and after
// the edits and returns both diagnostic lists, paths relative to the
// workspace. The copy is removed whatever happens.
func check(ctx context.Context, opts Options, req Request) (before, after []diagnostic.Diagnostic, err error) {
	dir, err := copyWorkspace(ctx, opts.Workspace.Dir(), opts.Copy)
	if err != nil {
		return nil, nil, err
	}
	defer func() { err = errors.Join(err, removeAll(dir)) }()
	// The current text of the edited files is what was read, not what the
	// disk holds by now.
	for _, e := range req.Edits {
		if e.Exists {
			if err := writeOverlay(dir, e.Path, e.Old); err != nil {
				return nil, nil, err
			}
		}
	}
	root, err := workspace.New(dir)
	if err != nil {
		return nil, nil, failure.Wrap(failure.Internal, err, "gate copy")
	}
	xopts := opts.Exec
	xopts.Workspace = root
	tool := exectool.New(req.Language, req.Gate, xopts)
	input, err := gateInput(req.Gate, req.Edits)
	if err != nil {
		return nil, nil, err
	}
	if err := tool.ValidateInput(input); err != nil {
		return nil, nil, failure.Wrap(failure.CodeOf(err), err, "gate %s", req.Gate.ID)
	}
	if before, err = run(ctx, tool, req.Gate.ID, root.Dir(), input, "before"); err != nil {
		return nil, nil, err
	}
	for _, e := range req.Edits {
		if err := writeOverlay(dir, e.Path, e.New); err != nil {
			return nil, nil, err
		}
	}
	if after, err = run(ctx, tool, req.Gate.ID, root.Dir(), input, "after"); err != nil {
		return nil, nil, err
	}
	return before, after, nil
}

// gateInput is the input of the gate tool: the first edited file as its
// path input when it takes one (gcc -fsyntax-only, javac, node --check
// check a file; cargo check, tsc check the project).
func gateInput(t *spec.Tool, edits []Edit) (map[string]any, error) {
	schema, err := exectool.InputSchema(t)
	if err != nil {
		return nil, failure.Wrap(failure.InvalidInput, err, "gate %s", t.ID)
	}
	input := map[string]any{}
	if _, ok := schema.Properties[exectool.InputPath]; ok {
		input[exectool.InputPath] = filepath.FromSlash(edits[0].Path)
	}
	return input, nil
}

// run runs the gate tool once. A run that fails without reporting an
// error diagnostic (a linker error no parser knows) counts as one error,
// so that an edit breaking the build is never taken for a clean one.
func run(ctx context.Context, tool *exectool.Tool, id, root string, input map[string]any, when string) ([]diagnostic.Diagnostic, error) {
	res, err := tool.Call(ctx, registryCall(input))
	if res == nil || err != nil && failure.CodeOf(err) != failure.ToolFailed {
		if err == nil {
			err = errors.New("no result")
		}
		return nil, failure.Wrap(failure.CodeOf(err), err, "gate %s on the text %s the edit", id, when)
	}
	ds := diagnostics(root, res)
	if !res.OK && diagnostic.Count(ds).Error == 0 {
		ds = append(ds, diagnostic.Diagnostic{Severity: diagnostic.Error, Source: id,
			Message: fmt.Sprintf("%s failed with exit code %d", id, res.ExitCode)})
	}
	return ds, nil
}
