package semantic

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/langhost/langhost/internal/txnlog"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/lsp"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// fileChange is the new content of one file an edit touches.
type fileChange struct {
	path      string // real path inside the workspace (for create: the path to create)
	rel       string
	old, new  []byte // old is the text the server computed the edit on
	editCount int
	create    bool // the file does not exist yet; old is empty
}

// FileDiff is one file of a change; the change's diff (one, of every
// file) is beside the list, not repeated in it.
type FileDiff struct {
	File   string `json:"file"`
	Edits  int    `json:"edits"`
	SHA256 string `json:"sha256" jsonschema:"hash of the content the diff was computed on (sha256:<hex>); pass it back in expect to apply exactly this preview"`
}

// contentHash is the form of a content hash in previews, expect and
// transaction records.
func contentHash(b []byte) string { return txnlog.Hash(b) }

// editTarget is one file a workspace edit touches.
type editTarget struct {
	path    string // real path inside the workspace
	edits   []lsp.TextEdit
	version *int32 // the document version the server says it edited, if any
}

// editTargets groups a workspace edit by file, confining every file to the
// workspace: a server may name any path, or one that leads out through a
// symlink, and langhost writes only regular files inside the root.
func (c *call) editTargets(edit *lsp.WorkspaceEdit) ([]*editTarget, error) {
	byPath := map[string]*editTarget{}
	via := map[string]lsp.DocumentURI{}
	var order []string
	add := func(uri lsp.DocumentURI, edits []lsp.TextEdit, version *int32) error {
		p, err := uri.Path()
		if err != nil {
			return failure.Wrap(failure.Internal, err, "the edit from %s names %q", c.s.name, uri)
		}
		real, err := c.e.ws.ResolveWrite("", p)
		if err != nil {
			return failure.Wrap(failure.Precondition, err, "the edit from %s touches %s, which langhost does not write; nothing was written", c.s.name, p)
		}
		t := byPath[real]
		if t == nil {
			t = &editTarget{path: real, version: version}
			byPath[real], via[real] = t, uri
			order = append(order, real)
		} else if via[real] != uri {
			return failure.New(failure.Precondition, "the edit from %s touches %s twice, as %s and %s; nothing was written", c.s.name, c.e.relPath(lsp.URIFromPath(real)), via[real], uri)
		}
		t.edits = append(t.edits, edits...)
		return nil
	}
	uris := make([]lsp.DocumentURI, 0, len(edit.Changes))
	for uri := range edit.Changes {
		uris = append(uris, uri)
	}
	sort.Slice(uris, func(i, j int) bool { return uris[i] < uris[j] })
	for _, uri := range uris {
		if err := add(uri, edit.Changes[uri], nil); err != nil {
			return nil, err
		}
	}
	for _, raw := range edit.DocumentChanges {
		var probe struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(raw, &probe); err != nil {
			return nil, failure.Wrap(failure.Internal, err, "decoding workspace edit from %s", c.s.name)
		}
		if probe.Kind != "" {
			return nil, c.fileOpErr(probe.Kind, raw)
		}
		var tde lsp.TextDocumentEdit
		if err := json.Unmarshal(raw, &tde); err != nil {
			return nil, failure.Wrap(failure.Internal, err, "decoding workspace edit from %s", c.s.name)
		}
		if err := add(tde.TextDocument.URI, tde.Edits, tde.TextDocument.Version); err != nil {
			return nil, err
		}
	}
	sort.Strings(order)
	out := make([]*editTarget, len(order))
	for i, p := range order {
		out[i] = byPath[p]
	}
	return out, nil
}

// fileOpErr is the refusal of a create, rename or delete in a server's
// workspace edit. langhost applies none; one that names a path the
// workspace does not let an edit write (git metadata, .langhost, outside)
// is refused as that, so that a server steering writes there is seen.
func (c *call) fileOpErr(kind string, raw json.RawMessage) error {
	var op struct {
		URI    lsp.DocumentURI `json:"uri"`
		OldURI lsp.DocumentURI `json:"oldUri"`
		NewURI lsp.DocumentURI `json:"newUri"`
	}
	if json.Unmarshal(raw, &op) == nil {
		for _, uri := range []lsp.DocumentURI{op.URI, op.OldURI, op.NewURI} {
			if uri == "" {
				continue
			}
			p, err := uri.Path()
			if err != nil {
				return failure.Wrap(failure.Internal, err, "the edit from %s names %q", c.s.name, uri)
			}
			if _, err := c.e.ws.ResolveCreate("", p); err != nil {
				return failure.Wrap(failure.CodeOf(err), err, "the edit from %s would %s %s, which langhost does not write; nothing was written", c.s.name, kind, p)
			}
		}
	}
	return failure.New(failure.Unsupported, "the edit from %s would %s a file, which langhost does not apply", c.s.name, kind)
}

// editChanges asks the server for an edit with request and computes the
// new file contents. The edit must be applied to exactly the text the
// server computed it on, which langhost knows only for documents it has
// open: a file the server read from disk by itself may be a stale copy. So
// when the edit touches files that are not open, they are opened and the
// edit is requested again.
func (c *call) editChanges(ctx context.Context, request func(context.Context) (*lsp.WorkspaceEdit, error)) ([]fileChange, error) {
	for attempt := 1; ; attempt++ {
		edit, err := request(ctx)
		if err != nil {
			return nil, err
		}
		targets, err := c.editTargets(edit)
		if err != nil {
			return nil, err
		}
		var closed []string
		for _, t := range targets {
			if c.s.openDoc(t.path) == nil {
				closed = append(closed, t.path)
			}
		}
		if len(closed) == 0 {
			return c.changes(targets)
		}
		if attempt == 3 {
			return nil, failure.New(failure.Internal, "%s keeps editing files it has not been given (%s)", c.s.name, c.e.relPath(lsp.URIFromPath(closed[0])))
		}
		for _, p := range closed {
			if _, err := c.s.document(ctx, p); err != nil {
				return nil, err
			}
		}
	}
}

// changes applies each target's edits to its open document.
func (c *call) changes(targets []*editTarget) ([]fileChange, error) {
	out := make([]fileChange, 0, len(targets))
	for _, t := range targets {
		d := c.s.openDoc(t.path)
		rel := c.e.relPath(lsp.URIFromPath(t.path))
		if d == nil {
			return nil, failure.New(failure.Internal, "%s is not open in %s", rel, c.s.name)
		}
		if t.version != nil && *t.version != d.version {
			return nil, failure.New(failure.Precondition, "%s computed its edit on version %d of %s, but langhost sent version %d; nothing was written, try again", c.s.name, *t.version, rel, d.version)
		}
		old := d.content()
		newContent, err := lsp.ApplyEdits(old, t.edits)
		if err != nil {
			return nil, failure.Wrap(failure.Internal, err, "applying the edit from %s to %s", c.s.name, rel)
		}
		out = append(out, fileChange{path: t.path, rel: rel, old: old, new: newContent, editCount: len(t.edits)})
	}
	return out, nil
}

func previews(changes []fileChange) ([]FileDiff, string) {
	files := []FileDiff{}
	var all strings.Builder
	for _, ch := range changes {
		d := UnifiedDiff(ch.rel, string(ch.old), string(ch.new))
		files = append(files, FileDiff{File: ch.rel, Edits: ch.editCount, SHA256: contentHash(ch.old)})
		all.WriteString(d)
	}
	return files, all.String()
}

// expectation is the expect input of rename and code_actions: the content
// hash of every file of the preview being applied, by workspace-relative
// path.
type expectation map[string]string

func (x expectation) validate(apply bool) error {
	if x != nil && !apply {
		return fieldErr(failure.InvalidInput, "expect", "is only used with apply")
	}
	for file, h := range x {
		hexPart, ok := strings.CutPrefix(strings.ToLower(h), "sha256:")
		if b, err := hex.DecodeString(hexPart); !ok || err != nil || len(b) != sha256.Size {
			return fieldErr(failure.InvalidInput, "expect", "%s: %q is not a content hash from a preview (sha256:<64 hex digits>)", file, h)
		}
		if file == "" {
			return fieldErr(failure.InvalidInput, "expect", "empty file name")
		}
	}
	return nil
}

// check refuses changes that are not the preview the caller saw: a file
// whose content changed since, or a different set of files.
func (x expectation) check(e *Engine, changes []fileChange) error {
	want := map[string]string{}
	for file, h := range x {
		p := filepath.FromSlash(file)
		if !filepath.IsAbs(p) {
			p = filepath.Join(e.root, p)
		}
		want[e.relPath(lsp.URIFromPath(filepath.Clean(p)))] = strings.ToLower(h)
	}
	var changed, added []string
	for _, ch := range changes {
		h, ok := want[ch.rel]
		delete(want, ch.rel)
		switch {
		case !ok:
			added = append(added, ch.rel)
		case h != contentHash(ch.old):
			changed = append(changed, ch.rel)
		}
	}
	dropped := slices.Sorted(maps.Keys(want))
	if len(changed)+len(added)+len(dropped) == 0 {
		return nil
	}
	var why []string
	if len(changed) > 0 {
		why = append(why, fmt.Sprintf("%s changed since the preview", strings.Join(changed, ", ")))
	}
	if len(added) > 0 {
		why = append(why, fmt.Sprintf("the edit now also touches %s", strings.Join(added, ", ")))
	}
	if len(dropped) > 0 {
		why = append(why, fmt.Sprintf("the edit no longer touches %s", strings.Join(dropped, ", ")))
	}
	err := fieldErr(failure.Precondition, "expect", "%s; nothing was written: preview again and apply the new preview", strings.Join(why, "; "))
	err.Details = map[string]any{"changed": nonNilStrings(changed), "added": nonNilStrings(added), "removed": nonNilStrings(dropped)}
	return err
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// writeAtomically replaces the content of every file or of none, and
// creates the files to create (internal/txnlog.Write): each must still be
// the regular file inside the workspace the edit was computed on. rename
// is os.Rename except in tests that inject a failure.
func writeAtomically(ws *workspace.Root, changes []fileChange, rename func(from, to string) error) error {
	files := make([]txnlog.Change, len(changes))
	for i, ch := range changes {
		files[i] = txnlog.Change{Path: ch.path, Name: ch.rel, Exists: !ch.create, Old: ch.old, New: ch.new}
	}
	return txnlog.Write(ws, files, rename)
}

// ---- organize_imports and format

// txnInput are the inputs of every operation that writes through a
// transaction.
type txnInput struct {
	Policy string `json:"policy,omitempty" jsonschema:"which new diagnostics reject the edit: new_errors (default), new_warnings or never"`
	DryRun bool   `json:"dry_run,omitempty" jsonschema:"check the edit in memory and return the diff and the diagnostics delta without writing"`
}

func (in txnInput) validate() error {
	_, err := checkPolicy(in.Policy)
	return err
}

type fileInput struct {
	File  string `json:"file" jsonschema:"file path, relative to the workspace root or absolute inside it"`
	Apply bool   `json:"apply,omitempty" jsonschema:"write the new text through a transaction (confirmed by --yes on the CLI, by the client's approval over MCP); default returns it only"`
	txnInput
}

func (in *fileInput) validate() error { return in.txnInput.validate() }

type newTextOutput struct {
	File        string     `json:"file"`
	Changed     bool       `json:"changed"`
	NewText     string     `json:"newText"`
	Diff        string     `json:"diff,omitempty"`
	Transaction *TxnResult `json:"transaction,omitempty" jsonschema:"with apply or dry_run: the transaction"`
}

// writeNewText sends a whole-file result of organize_imports or format
// through a transaction when the caller asked to apply or dry-run it.
func (c *call) writeNewText(ctx context.Context, op string, doc *document, out *newTextOutput, apply bool, in txnInput) (*newTextOutput, error) {
	if !apply && !in.DryRun {
		return out, nil
	}
	tr, err := c.transact(ctx, &txn{Operation: op, Policy: in.Policy, DryRun: in.DryRun,
		Trace:   []string{fmt.Sprintf("%s %s", op, out.File)},
		Changes: []fileChange{{path: doc.path, rel: out.File, old: doc.content(), new: []byte(out.NewText), editCount: 1}}})
	if err != nil {
		return nil, err
	}
	out.Transaction = tr
	return out, nil
}

func newText(doc *document, rel string, content []byte) *newTextOutput {
	return &newTextOutput{
		File: rel, Changed: !bytes.Equal(content, doc.content()), NewText: string(content),
		Diff: UnifiedDiff(rel, string(doc.content()), string(content)),
	}
}

func organizeImports(ctx context.Context, c *call, in *fileInput) (*newTextOutput, error) {
	if err := c.s.require("codeActionProvider", "textDocument/codeAction"); err != nil {
		return nil, err
	}
	doc, err := c.openOrView(ctx, "file", in.File)
	if err != nil {
		return nil, err
	}
	end := lsp.Position{Line: uint32(doc.mapper.LineCount() - 1)}
	end.Character = uint32(len(doc.mapper.LineText(doc.mapper.LineCount())))
	actions, err := c.codeActionsAt(ctx, doc, lsp.Range{End: end}, []string{"source.organizeImports"})
	if err != nil {
		return nil, err
	}
	rel := c.e.relPath(doc.uri)
	for _, a := range actions {
		if a.Kind != "source.organizeImports" && !strings.HasPrefix(a.Kind, "source.organizeImports.") {
			continue
		}
		edit, err := c.actionEdit(ctx, a)
		if err != nil {
			return nil, err
		}
		targets, err := c.editTargets(edit)
		if err != nil {
			return nil, err
		}
		for _, t := range targets {
			if t.path == doc.path {
				content, err := lsp.ApplyEdits(doc.content(), t.edits)
				if err != nil {
					return nil, failure.Wrap(failure.Internal, err, "applying the edit from %s to %s", c.s.name, rel)
				}
				return c.writeNewText(ctx, "organize_imports", doc, newText(doc, rel, content), in.Apply, in.txnInput)
			}
		}
	}
	// No action means the imports are already organised, unless the
	// server never offers one.
	if d, ok := c.s.dialect.(organizeImportsLacker); ok {
		return nil, failure.New(failure.Unsupported, "%s offers no source.organizeImports action; %s", c.s.name, d.organizeImportsInstead())
	}
	return newText(doc, rel, doc.content()), nil
}

// organizeImportsLacker is a dialect whose server never offers
// source.organizeImports, so that no action does not mean "organised".
type organizeImportsLacker interface {
	organizeImportsInstead() string // what to call instead
}

type formatInput struct {
	File         string `json:"file" jsonschema:"file path, relative to the workspace root or absolute inside it"`
	TabSize      int    `json:"tab_size,omitempty" jsonschema:"tab size (default: detected from the file, else 4)"`
	InsertSpaces *bool  `json:"insert_spaces,omitempty" jsonschema:"indent with spaces (default: detected from the file, else true)"`
	Apply        bool   `json:"apply,omitempty" jsonschema:"write the formatted text through a transaction (confirmed by --yes on the CLI, by the client's approval over MCP); default returns it only"`
	txnInput
}

func (in *formatInput) validate() error { return in.txnInput.validate() }

func format(ctx context.Context, c *call, in *formatInput) (*newTextOutput, error) {
	if err := c.s.require("documentFormattingProvider", "textDocument/formatting"); err != nil {
		return nil, err
	}
	doc, err := c.openOrView(ctx, "file", in.File)
	if err != nil {
		return nil, err
	}
	size, spaces := detectIndent(doc.content())
	opts := lsp.FormattingOptions{TabSize: uint32(size), InsertSpaces: spaces}
	if in.TabSize > 0 {
		opts.TabSize = uint32(in.TabSize)
	}
	if in.InsertSpaces != nil {
		opts.InsertSpaces = *in.InsertSpaces
	}
	var edits []lsp.TextEdit
	if err := c.s.call(ctx, "textDocument/formatting", map[string]any{"textDocument": lsp.TextDocumentIdentifier{URI: doc.uri}, "options": opts}, &edits); err != nil {
		return nil, err
	}
	content, err := lsp.ApplyEdits(doc.content(), edits)
	if err != nil {
		return nil, failure.Wrap(failure.Internal, err, "applying formatting edits from %s", c.s.name)
	}
	return c.writeNewText(ctx, "format", doc, newText(doc, c.e.relPath(doc.uri), content), in.Apply, in.txnInput)
}

// ---- rename

type renameInput struct {
	Target
	NewName string      `json:"new_name" jsonschema:"the new name"`
	Apply   bool        `json:"apply,omitempty" jsonschema:"write the change (confirmed by --yes on the CLI, by the client's approval over MCP); default is a preview"`
	Expect  expectation `json:"expect,omitempty" jsonschema:"with apply: the sha256 of every file of the preview to apply (files[].file -> files[].sha256); the write is refused, and nothing written, if any file changed since the preview or the edit now touches other files"`
	txnInput
}

func (in *renameInput) validate() error {
	if strings.TrimSpace(in.NewName) == "" {
		return fieldErr(failure.InvalidInput, "new_name", "is required")
	}
	if err := in.txnInput.validate(); err != nil {
		return err
	}
	return in.Expect.validate(in.Apply)
}

type editOutput struct {
	Files       []FileDiff `json:"files"`
	Diff        string     `json:"diff"`
	Applied     bool       `json:"applied"`
	Transaction *TxnResult `json:"transaction,omitempty" jsonschema:"with apply or dry_run: the transaction (id, diagnostics delta)"`
}

// write sends a previewed edit through a transaction when the caller asked
// to apply or dry-run it, and reports the outcome in out.
func (c *call) write(ctx context.Context, op, what string, changes []fileChange, apply bool, expect expectation, in txnInput, out *editOutput) error {
	if !apply && !in.DryRun {
		return nil
	}
	tr, err := c.transact(ctx, &txn{Operation: op, Changes: changes, Expect: expect, Policy: in.Policy, DryRun: in.DryRun, Trace: []string{what}})
	if err != nil {
		return err
	}
	out.Transaction, out.Applied = tr, tr.Applied
	return nil
}

type renameOutput struct {
	Symbol  string `json:"symbol"`
	NewName string `json:"newName"`
	editOutput
}

func rename(ctx context.Context, c *call, in *renameInput) (*renameOutput, error) {
	if err := c.s.require("renameProvider", "textDocument/rename"); err != nil {
		return nil, err
	}
	r, err := c.resolveTarget(ctx, in.Target)
	if err != nil {
		return nil, err
	}
	var opts struct {
		PrepareProvider bool `json:"prepareProvider"`
	}
	_ = json.Unmarshal(c.s.caps["renameProvider"], &opts)
	if opts.PrepareProvider {
		var raw json.RawMessage
		err := c.s.call(ctx, "textDocument/prepareRename", c.docPos(r.doc, r.pos), &raw)
		var re *lsp.ResponseError
		if errors.As(err, &re) {
			return nil, fieldErr(failure.InvalidInput, "symbol", "cannot rename at %s: %s", c.where(r), re.Message)
		}
		if err != nil {
			return nil, err
		}
		if len(raw) == 0 || string(raw) == "null" {
			return nil, fieldErr(failure.InvalidInput, "symbol", "nothing to rename at %s", c.where(r))
		}
	}
	params := c.docPos(r.doc, r.pos)
	params["newName"] = in.NewName
	changes, err := c.editChanges(ctx, func(ctx context.Context) (*lsp.WorkspaceEdit, error) {
		var edit lsp.WorkspaceEdit
		if err := c.s.call(ctx, "textDocument/rename", params, &edit); err != nil {
			var re *lsp.ResponseError
			if errors.As(err, &re) {
				return nil, failure.Wrap(failure.Precondition, re, "%s refused to rename at %s", c.s.name, c.where(r))
			}
			return nil, err
		}
		return &edit, nil
	})
	if err != nil {
		return nil, err
	}
	name := c.targetName(ctx, r)
	out := &renameOutput{Symbol: name, NewName: in.NewName}
	out.Files, out.Diff = previews(changes)
	if err := c.write(ctx, "rename", fmt.Sprintf("rename %s to %s", name, in.NewName), changes, in.Apply, in.Expect, in.txnInput, &out.editOutput); err != nil {
		return nil, err
	}
	return out, nil
}

// ---- code_actions

// actionRef selects a code action by 0-based index or exact title.
type actionRef string

func (a *actionRef) UnmarshalJSON(b []byte) error {
	var n int
	if err := json.Unmarshal(b, &n); err == nil {
		*a = actionRef("#" + strconv.Itoa(n))
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("preview must be an index or a title")
	}
	*a = actionRef(s)
	return nil
}

type codeActionsInput struct {
	File      string      `json:"file" jsonschema:"file path, relative to the workspace root or absolute inside it"`
	Line      int         `json:"line" jsonschema:"1-based start line"`
	Column    int         `json:"column,omitempty" jsonschema:"1-based start column (default 1)"`
	EndLine   int         `json:"end_line,omitempty" jsonschema:"1-based end line (default: the start)"`
	EndColumn int         `json:"end_column,omitempty" jsonschema:"1-based end column"`
	Only      []string    `json:"only,omitempty" jsonschema:"code action kinds to ask for, e.g. quickfix, refactor, source.organizeImports"`
	Preview   actionRef   `json:"preview,omitempty"`
	Apply     bool        `json:"apply,omitempty" jsonschema:"write the previewed action's edit (confirmed by --yes on the CLI, by the client's approval over MCP)"`
	Expect    expectation `json:"expect,omitempty" jsonschema:"with apply: the sha256 of every file of the preview to apply (files[].file -> files[].sha256); the write is refused, and nothing written, if any file changed since the preview or the edit now touches other files"`
	txnInput
}

func (in *codeActionsInput) validate() error {
	if (in.Apply || in.DryRun) && in.Preview == "" {
		return fieldErr(failure.InvalidInput, "preview", "apply and dry_run need preview to name the action")
	}
	if err := in.txnInput.validate(); err != nil {
		return err
	}
	return in.Expect.validate(in.Apply)
}

// ActionItem is one available code action.
type ActionItem struct {
	Index     int    `json:"index"`
	Title     string `json:"title"`
	Kind      string `json:"kind,omitempty"`
	Preferred bool   `json:"preferred,omitempty"`
	Disabled  string `json:"disabled,omitempty"`
}

type codeActionsOutput struct {
	Actions     []ActionItem `json:"actions"`
	Selected    *ActionItem  `json:"selected,omitempty"`
	Files       []FileDiff   `json:"files,omitempty"`
	Diff        string       `json:"diff,omitempty"`
	Applied     bool         `json:"applied,omitempty"`
	Transaction *TxnResult   `json:"transaction,omitempty" jsonschema:"with apply or dry_run: the transaction (id, diagnostics delta)"`
}

func codeActions(ctx context.Context, c *call, in *codeActionsInput) (*codeActionsOutput, error) {
	if err := c.s.require("codeActionProvider", "textDocument/codeAction"); err != nil {
		return nil, err
	}
	doc, err := c.openOrView(ctx, "file", in.File)
	if err != nil {
		return nil, err
	}
	start, err := c.position(doc, in.File, in.Line, max(in.Column, 1), "line", "column")
	if err != nil {
		return nil, err
	}
	end := start
	if in.EndLine > 0 {
		if end, err = c.position(doc, in.File, in.EndLine, max(in.EndColumn, 1), "end_line", "end_column"); err != nil {
			return nil, err
		}
	}
	rng := lsp.Range{Start: start, End: end}
	actions, err := c.codeActionsAt(ctx, doc, rng, in.Only)
	if err != nil {
		return nil, err
	}
	out := &codeActionsOutput{Actions: []ActionItem{}}
	for i, a := range actions {
		item := ActionItem{Index: i, Title: a.Title, Kind: a.Kind, Preferred: a.IsPreferred}
		if a.Disabled != nil {
			item.Disabled = a.Disabled.Reason
		}
		out.Actions = append(out.Actions, item)
	}
	if in.Preview == "" {
		return out, nil
	}
	idx := -1
	if n, ok := strings.CutPrefix(string(in.Preview), "#"); ok {
		if i, err := strconv.Atoi(n); err == nil {
			idx = i
		}
	} else {
		for i, a := range actions {
			if a.Title == string(in.Preview) {
				idx = i
				break
			}
		}
	}
	if idx < 0 || idx >= len(actions) {
		titles := make([]string, len(actions))
		for i, a := range actions {
			titles[i] = a.Title
		}
		err := fieldErr(failure.NotFound, "preview", "no code action %s at %s:%d (%d available)", strings.TrimPrefix(string(in.Preview), "#"), in.File, in.Line, len(actions))
		err.Details = map[string]any{"candidates": titles}
		return nil, err
	}
	out.Selected = &out.Actions[idx]
	selected, asked := actions[idx], false
	changes, err := c.editChanges(ctx, func(ctx context.Context) (*lsp.WorkspaceEdit, error) {
		if asked {
			// Ask again now that the server has every file the edit touches open.
			again, err := c.codeActionsAt(ctx, doc, rng, in.Only)
			if err != nil {
				return nil, err
			}
			i := slices.IndexFunc(again, func(a lsp.CodeAction) bool { return a.Title == selected.Title && a.Kind == selected.Kind })
			if i < 0 {
				return nil, fieldErr(failure.Precondition, "preview", "%s no longer offers the code action %q", c.s.name, selected.Title)
			}
			selected = again[i]
		}
		asked = true
		return c.actionEdit(ctx, selected)
	})
	if err != nil {
		return nil, err
	}
	out.Files, out.Diff = previews(changes)
	var eo editOutput
	if err := c.write(ctx, "code_actions", fmt.Sprintf("code action %q", selected.Title), changes, in.Apply, in.Expect, in.txnInput, &eo); err != nil {
		return nil, err
	}
	out.Transaction, out.Applied = eo.Transaction, eo.Applied
	return out, nil
}

// codeActionsAt asks for code actions, passing the diagnostics that
// overlap the range so the server can offer quick fixes.
func (c *call) codeActionsAt(ctx context.Context, doc *document, rng lsp.Range, only []string) ([]lsp.CodeAction, error) {
	var diags []lsp.Diagnostic
	if e, ok := c.s.srv.Diagnostics(doc.uri); ok {
		for _, d := range e.Diagnostics {
			if !d.Range.End.Before(rng.Start) && !rng.End.Before(d.Range.Start) {
				diags = append(diags, d)
			}
		}
	}
	if diags == nil {
		diags = []lsp.Diagnostic{}
	}
	actx := map[string]any{"diagnostics": diags, "triggerKind": 1}
	if len(only) > 0 {
		actx["only"] = only
	}
	var raw json.RawMessage
	err := c.s.call(ctx, "textDocument/codeAction", map[string]any{
		"textDocument": lsp.TextDocumentIdentifier{URI: doc.uri}, "range": rng, "context": actx}, &raw)
	if err != nil {
		return nil, err
	}
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	actions, err := lsp.DecodeCodeActions(raw)
	if err != nil {
		return nil, failure.Wrap(failure.Internal, err, "decoding codeAction result from %s", c.s.name)
	}
	return actions, nil
}

// actionEdit returns a code action's edit, resolving it when needed.
func (c *call) actionEdit(ctx context.Context, a lsp.CodeAction) (*lsp.WorkspaceEdit, error) {
	if a.Disabled != nil {
		return nil, failure.New(failure.Precondition, "code action %q is disabled: %s", a.Title, a.Disabled.Reason)
	}
	if a.Edit == nil && len(a.Data) > 0 && c.s.supportsResolve() {
		var resolved lsp.CodeAction
		if err := c.s.call(ctx, "codeAction/resolve", a, &resolved); err != nil {
			return nil, err
		}
		a = resolved
	}
	if a.Edit == nil {
		if a.Command != nil {
			return nil, failure.New(failure.Unsupported, "code action %q runs the %s command %q instead of returning an edit; it cannot be previewed", a.Title, c.s.name, a.Command.Command)
		}
		return &lsp.WorkspaceEdit{}, nil
	}
	return a.Edit, nil
}

func (s *session) supportsResolve() bool {
	var opts struct {
		ResolveProvider bool `json:"resolveProvider"`
	}
	_ = json.Unmarshal(s.caps["codeActionProvider"], &opts)
	return opts.ResolveProvider
}
