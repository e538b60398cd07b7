package semantic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/langhost/langhost/plugins/lsp"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// fileChange is the new content of one file an edit touches.
type fileChange struct {
	path      string
	rel       string
	old, new  []byte
	editCount int
}

// FileDiff is the preview of one file's change.
type FileDiff struct {
	File  string `json:"file"`
	Edits int    `json:"edits"`
	Diff  string `json:"diff"`
}

// changes computes the new file contents a workspace edit produces.
func (c *call) changes(edit *lsp.WorkspaceEdit) ([]fileChange, error) {
	byURI := map[lsp.DocumentURI][]lsp.TextEdit{}
	var order []lsp.DocumentURI
	add := func(uri lsp.DocumentURI, edits []lsp.TextEdit) {
		if _, ok := byURI[uri]; !ok {
			order = append(order, uri)
		}
		byURI[uri] = append(byURI[uri], edits...)
	}
	for uri, edits := range edit.Changes {
		add(uri, edits)
	}
	for _, raw := range edit.DocumentChanges {
		var probe struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(raw, &probe); err != nil {
			return nil, failure.Wrap(failure.Internal, err, "decoding workspace edit from %s", c.s.name)
		}
		if probe.Kind != "" {
			return nil, failure.New(failure.Unsupported, "the edit from %s would %s a file, which langhost does not apply", c.s.name, probe.Kind)
		}
		var tde lsp.TextDocumentEdit
		if err := json.Unmarshal(raw, &tde); err != nil {
			return nil, failure.Wrap(failure.Internal, err, "decoding workspace edit from %s", c.s.name)
		}
		add(tde.TextDocument.URI, tde.Edits)
	}
	sort.Slice(order, func(i, j int) bool { return order[i] < order[j] })
	var out []fileChange
	for _, uri := range order {
		path, err := uri.Path()
		if err != nil {
			return nil, failure.Wrap(failure.Internal, err, "edit target")
		}
		rel := c.e.relPath(uri)
		if strings.HasPrefix(rel, "/") {
			return nil, failure.New(failure.Precondition, "the edit from %s touches %s, outside the workspace root", c.s.name, path)
		}
		m, err := c.s.peek(path)
		if err != nil {
			return nil, failure.Wrap(failure.NotFound, err, "reading %s", rel)
		}
		newContent, err := lsp.ApplyEdits(m.Content(), byURI[uri])
		if err != nil {
			return nil, failure.Wrap(failure.Internal, err, "applying the edit from %s to %s", c.s.name, rel)
		}
		out = append(out, fileChange{path: path, rel: rel, old: m.Content(), new: newContent, editCount: len(byURI[uri])})
	}
	return out, nil
}

func previews(changes []fileChange) ([]FileDiff, string) {
	files := []FileDiff{}
	var all strings.Builder
	for _, ch := range changes {
		d := UnifiedDiff(ch.rel, string(ch.old), string(ch.new))
		files = append(files, FileDiff{File: ch.rel, Edits: ch.editCount, Diff: d})
		all.WriteString(d)
	}
	return files, all.String()
}

// apply writes the changes atomically and tells the server.
func (c *call) apply(ctx context.Context, what string, changes []fileChange) error {
	if !c.confirmed {
		return failure.New(failure.Precondition, "%s needs confirmation: it writes %d file(s); repeat the call with confirmation to apply", what, len(changes))
	}
	if err := writeAtomically(changes); err != nil {
		return err
	}
	paths := make([]string, len(changes))
	for i, ch := range changes {
		paths[i] = ch.path
	}
	return c.s.filesWritten(ctx, paths)
}

// writeAtomically writes every file or none: it first writes all new
// contents to temporary files beside their targets, then renames them over
// the targets, restoring the old contents if a rename fails midway.
func writeAtomically(changes []fileChange) error {
	type staged struct {
		ch   fileChange
		tmp  string
		mode os.FileMode
	}
	var stage []staged
	cleanup := func() {
		for _, s := range stage {
			os.Remove(s.tmp)
		}
	}
	for _, ch := range changes {
		cur, err := os.ReadFile(ch.path)
		if err != nil {
			cleanup()
			return failure.Wrap(failure.Precondition, err, "reading %s before writing", ch.rel)
		}
		if !bytes.Equal(cur, ch.old) {
			cleanup()
			return failure.New(failure.Precondition, "%s changed on disk while the edit was computed; nothing was written", ch.rel)
		}
		fi, err := os.Stat(ch.path)
		if err != nil {
			cleanup()
			return failure.Wrap(failure.Precondition, err, "%s", ch.rel)
		}
		f, err := os.CreateTemp(filepath.Dir(ch.path), "."+filepath.Base(ch.path)+".langhost-*")
		if err != nil {
			cleanup()
			return failure.Wrap(failure.Precondition, err, "staging %s; nothing was written", ch.rel)
		}
		stage = append(stage, staged{ch: ch, tmp: f.Name(), mode: fi.Mode().Perm()})
		_, werr := f.Write(ch.new)
		cerr := f.Close()
		if err := errors.Join(werr, cerr, os.Chmod(f.Name(), fi.Mode().Perm())); err != nil {
			cleanup()
			return failure.Wrap(failure.Precondition, err, "staging %s; nothing was written", ch.rel)
		}
	}
	for i, s := range stage {
		if err := os.Rename(s.tmp, s.ch.path); err != nil {
			// Roll back the files already replaced.
			var rollback []error
			for _, done := range stage[:i] {
				rollback = append(rollback, os.WriteFile(done.ch.path, done.ch.old, done.mode))
			}
			cleanup()
			return failure.Wrap(failure.Internal, errors.Join(append([]error{err}, rollback...)...),
				"writing %s failed; %d earlier file(s) were restored", s.ch.rel, i)
		}
	}
	return nil
}

// ---- organize_imports and format

type fileInput struct {
	File string `json:"file" jsonschema:"file path, relative to the workspace root or absolute inside it"`
}

type newTextOutput struct {
	File    string `json:"file"`
	Changed bool   `json:"changed"`
	NewText string `json:"newText"`
	Diff    string `json:"diff,omitempty"`
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
	doc, err := c.open(ctx, "file", in.File)
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
		changes, err := c.changes(edit)
		if err != nil {
			return nil, err
		}
		for _, ch := range changes {
			if ch.path == doc.path {
				return newText(doc, rel, ch.new), nil
			}
		}
	}
	// No action means the imports are already organised.
	return newText(doc, rel, doc.content()), nil
}

type formatInput struct {
	File         string `json:"file" jsonschema:"file path, relative to the workspace root or absolute inside it"`
	TabSize      int    `json:"tabSize,omitempty" jsonschema:"tab size (default: detected from the file, else 4)"`
	InsertSpaces *bool  `json:"insertSpaces,omitempty" jsonschema:"indent with spaces (default: detected from the file, else true)"`
}

func format(ctx context.Context, c *call, in *formatInput) (*newTextOutput, error) {
	if err := c.s.require("documentFormattingProvider", "textDocument/formatting"); err != nil {
		return nil, err
	}
	doc, err := c.open(ctx, "file", in.File)
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
	return newText(doc, c.e.relPath(doc.uri), content), nil
}

// ---- rename

type renameInput struct {
	Target
	NewName string `json:"newName" jsonschema:"the new name"`
	Apply   bool   `json:"apply,omitempty" jsonschema:"write the change (needs confirmation); default is a preview"`
}

func (in *renameInput) validate() error {
	if strings.TrimSpace(in.NewName) == "" {
		return fieldErr(failure.InvalidInput, "newName", "is required")
	}
	return nil
}

type editOutput struct {
	Files   []FileDiff `json:"files"`
	Diff    string     `json:"diff"`
	Applied bool       `json:"applied"`
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
	var edit lsp.WorkspaceEdit
	if err := c.s.call(ctx, "textDocument/rename", params, &edit); err != nil {
		var re *lsp.ResponseError
		if errors.As(err, &re) {
			return nil, failure.Wrap(failure.Precondition, re, "%s refused to rename at %s", c.s.name, c.where(r))
		}
		return nil, err
	}
	changes, err := c.changes(&edit)
	if err != nil {
		return nil, err
	}
	name := r.name
	if name == "" {
		name = identifierAt(r.doc.mapper, r.pos)
	}
	out := &renameOutput{Symbol: name, NewName: in.NewName}
	out.Files, out.Diff = previews(changes)
	if in.Apply {
		if err := c.apply(ctx, fmt.Sprintf("renaming %s to %s", name, in.NewName), changes); err != nil {
			return nil, err
		}
		out.Applied = true
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
	File      string    `json:"file" jsonschema:"file path, relative to the workspace root or absolute inside it"`
	Line      int       `json:"line" jsonschema:"1-based start line"`
	Column    int       `json:"column,omitempty" jsonschema:"1-based start column (default 1)"`
	EndLine   int       `json:"endLine,omitempty" jsonschema:"1-based end line (default: the start)"`
	EndColumn int       `json:"endColumn,omitempty" jsonschema:"1-based end column"`
	Only      []string  `json:"only,omitempty" jsonschema:"code action kinds to ask for, e.g. quickfix, refactor, source.organizeImports"`
	Preview   actionRef `json:"preview,omitempty"`
	Apply     bool      `json:"apply,omitempty" jsonschema:"write the previewed action's edit (needs confirmation)"`
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
	Actions  []ActionItem `json:"actions"`
	Selected *ActionItem  `json:"selected,omitempty"`
	Files    []FileDiff   `json:"files,omitempty"`
	Diff     string       `json:"diff,omitempty"`
	Applied  bool         `json:"applied,omitempty"`
}

func codeActions(ctx context.Context, c *call, in *codeActionsInput) (*codeActionsOutput, error) {
	if in.Apply && in.Preview == "" {
		return nil, fieldErr(failure.InvalidInput, "preview", "apply needs preview to name the action")
	}
	if err := c.s.require("codeActionProvider", "textDocument/codeAction"); err != nil {
		return nil, err
	}
	doc, err := c.open(ctx, "file", in.File)
	if err != nil {
		return nil, err
	}
	start, err := c.position(doc, in.File, in.Line, max(in.Column, 1), "line", "column")
	if err != nil {
		return nil, err
	}
	end := start
	if in.EndLine > 0 {
		if end, err = c.position(doc, in.File, in.EndLine, max(in.EndColumn, 1), "endLine", "endColumn"); err != nil {
			return nil, err
		}
	}
	actions, err := c.codeActionsAt(ctx, doc, lsp.Range{Start: start, End: end}, in.Only)
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
	edit, err := c.actionEdit(ctx, actions[idx])
	if err != nil {
		return nil, err
	}
	changes, err := c.changes(edit)
	if err != nil {
		return nil, err
	}
	out.Files, out.Diff = previews(changes)
	if in.Apply {
		if err := c.apply(ctx, fmt.Sprintf("code action %q", actions[idx].Title), changes); err != nil {
			return nil, err
		}
		out.Applied = true
	}
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
