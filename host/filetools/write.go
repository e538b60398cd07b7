package filetools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/langhost/langhost/host/gate"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/internal/editlimit"
	"github.com/langhost/langhost/internal/safefile"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// maxWriteSize bounds the files write_file and replace_in_file handle
// (replace_in_file's edits apply to files of at most
// editlimit.MaxFileBytes).
const maxWriteSize = 16 << 20

// wholeFile is what a refusal of too many edits suggests instead.
const wholeFile = "write the whole file with workspace.write_file"

type writeInput struct {
	Path    string `json:"path" jsonschema:"file relative to the workspace root; created (with its directories) when missing"`
	Content string `json:"content" jsonschema:"the whole new content"`
	Policy  string `json:"policy,omitempty" jsonschema:"which new diagnostics reject the edit: new_errors (default), new_warnings or never"`
	DryRun  bool   `json:"dry_run,omitempty" jsonschema:"check and return the diff and diagnostics delta without writing"`
}

type replaceEdit struct {
	OldText string `json:"old_text" jsonschema:"exact text to replace; it must occur exactly once"`
	NewText string `json:"new_text"`
}

type replaceInput struct {
	Path   string        `json:"path" jsonschema:"file relative to the workspace root"`
	Edits  []replaceEdit `json:"edits" jsonschema:"replacements, applied in order to the result of the ones before; at most 1000, on a file of at most 8 MiB"`
	Policy string        `json:"policy,omitempty" jsonschema:"which new diagnostics reject the edit: new_errors (default), new_warnings or never"`
	DryRun bool          `json:"dry_run,omitempty" jsonschema:"check and return the diff and diagnostics delta without writing"`
}

// target is the file a write is about, as read.
type target struct {
	rel, abs string
	exists   bool
	old      []byte
}

// target confines the path of a write and reads what the file holds.
func (ts *tools) target(key, p string, mustExist bool) (*target, error) {
	rel, err := relPath(key, p)
	if err != nil {
		return nil, err
	}
	// The workspace decides what may be written: inside it, a regular
	// file, and neither git metadata nor .langhost at any depth, by the
	// path given or the one it leads to.
	ws := ts.opts.Workspace
	if abs, err := ws.ResolveWrite(key, rel); err == nil {
		old, err := safefile.ReadRegular(abs, maxWriteSize)
		if err != nil {
			return nil, &failure.Error{Code: failure.Precondition, Field: key, Err: err, Message: fmt.Sprintf("cannot read %s", rel)}
		}
		return &target{rel: rel, abs: abs, exists: true, old: old}, nil
	} else if failure.CodeOf(err) != failure.NotFound || mustExist {
		return nil, err
	}
	abs, err := ws.ResolveCreate(key, rel)
	if err != nil {
		return nil, err
	}
	return &target{rel: rel, abs: abs}, nil
}

func (ts *tools) write(ctx context.Context, call registry.Call) (any, error) {
	var in writeInput
	if err := decode(call.Input, &in); err != nil {
		return nil, err
	}
	if len(in.Content) > maxWriteSize {
		return nil, &failure.Error{Code: failure.InvalidInput, Field: "content", Message: fmt.Sprintf("content is larger than %d bytes", maxWriteSize)}
	}
	t, err := ts.target("path", in.Path, false)
	if err != nil {
		return nil, err
	}
	forward := map[string]any{"file": t.rel, "content": in.Content}
	return ts.apply(ctx, call, "write_file", t, []byte(in.Content), in.Policy, in.DryRun, forward)
}

func (ts *tools) replace(ctx context.Context, call registry.Call) (any, error) {
	var in replaceInput
	if err := decode(call.Input, &in); err != nil {
		return nil, err
	}
	if len(in.Edits) == 0 {
		return nil, &failure.Error{Code: failure.InvalidInput, Field: "edits", Message: "no edits"}
	}
	// The limits of edit_file, checked before the first edit: each edit
	// scans what the ones before it left.
	if err := editlimit.Count(len(in.Edits), wholeFile); err != nil {
		return nil, err
	}
	t, err := ts.target("path", in.Path, true)
	if err != nil {
		return nil, err
	}
	if len(t.old) > editlimit.MaxFileBytes {
		return nil, editlimit.TooLarge(t.rel, wholeFile)
	}
	if err := editlimit.Work(len(in.Edits), len(t.old), t.rel, wholeFile); err != nil {
		return nil, err
	}
	text := string(t.old)
	edits := make([]any, len(in.Edits))
	for i, e := range in.Edits {
		if err := ctx.Err(); err != nil {
			return nil, failure.Wrap(failure.Canceled, err, "replace_in_file %s: canceled after %d of %d edits; nothing was written", t.rel, i, len(in.Edits))
		}
		key := fmt.Sprintf("edits[%d].old_text", i)
		if text, err = replaceOnce(text, e.OldText, e.NewText, key, t.rel); err != nil {
			return nil, err
		}
		edits[i] = map[string]any{"old_text": e.OldText, "new_text": e.NewText}
	}
	if len(text) > maxWriteSize {
		return nil, &failure.Error{Code: failure.InvalidInput, Field: "edits", Message: fmt.Sprintf("the result is larger than %d bytes", maxWriteSize)}
	}
	forward := map[string]any{"file": t.rel, "edits": edits}
	return ts.apply(ctx, call, "replace_in_file", t, []byte(text), in.Policy, in.DryRun, forward)
}

// replaceOnce replaces the one occurrence of old in text.
func replaceOnce(text, old, repl, key, file string) (string, error) {
	if old == "" {
		return "", &failure.Error{Code: failure.InvalidInput, Field: key, Message: "old_text is empty: give the exact text to replace"}
	}
	first := strings.Index(text, old)
	if first < 0 {
		return "", &failure.Error{Code: failure.AnchorNotResolved, Field: key,
			Message: fmt.Sprintf("the text is not in %s (it must match exactly, whitespace included); read the file again", file)}
	}
	if next := strings.Index(text[first+1:], old); next >= 0 {
		var lines []int
		for i, off := 0, 0; i < 20; i++ {
			j := strings.Index(text[off:], old)
			if j < 0 {
				break
			}
			lines = append(lines, strings.Count(text[:off+j], "\n")+1)
			off += j + 1
		}
		return "", &failure.Error{Code: failure.Ambiguous, Field: key,
			Message: fmt.Sprintf("the text occurs %d or more times in %s (lines %v); include more surrounding text so that it matches once", len(lines), file, lines),
			Details: map[string]any{"lines": lines}}
	}
	return text[:first] + repl + text[first+len(old):], nil
}

// apply writes new content as a transaction: through the language
// server's edit_file when one serves the file, else the spec's gate tool,
// else unchecked.
func (ts *tools) apply(ctx context.Context, call registry.Call, op string, t *target, content []byte, policy string, dryRun bool, forward map[string]any) (any, error) {
	if _, err := gate.CheckPolicy("policy", policy); err != nil {
		return nil, err
	}
	if t.exists && bytes.Equal(t.old, content) {
		return nil, &failure.Error{Code: failure.InvalidInput, Field: "path", Message: fmt.Sprintf("the edit leaves %s unchanged", t.rel)}
	}
	if id := ts.editTool(t.rel); id != "" {
		if policy != "" {
			forward["policy"] = policy
		}
		if dryRun {
			forward["dry_run"] = true
		}
		res, err := ts.opts.Registry.Call(ctx, id, registry.Call{Input: forward, Confirmed: call.Confirmed, WorkspaceCode: call.WorkspaceCode, Progress: call.Progress})
		if err != nil {
			return nil, err
		}
		return withGate(res, id), nil
	}
	lang := ts.language(t.rel)
	req := gate.Request{Tool: Namespace + "." + op, Operation: op, Policy: policy, DryRun: dryRun, WorkspaceCode: call.WorkspaceCode,
		Edits: []gate.Edit{{Path: t.rel, Abs: t.abs, Exists: t.exists, Old: t.old, New: content}}}
	if lang != nil {
		req.Language, req.Gate = lang.Language.ID, lang.GateTool()
	}
	return gate.Run(ctx, ts.opts.Gate, req)
}

// language is the spec whose extensions name rel's, or nil.
func (ts *tools) language(rel string) *spec.File {
	if ts.opts.Specs == nil {
		return nil
	}
	ext := path.Ext(rel)
	if ext == "" {
		return nil
	}
	for _, f := range ts.opts.Specs.Languages {
		if slices.ContainsFunc(f.Language.Extensions, func(e string) bool { return strings.EqualFold(e, ext) }) {
			return f
		}
	}
	return nil
}

// serverInstalled reports whether one of the language's servers can run
// here; without one, edit_file would fail and the gate tool checks instead.
func (ts *tools) serverInstalled(f *spec.File) bool {
	if f.Semantic == nil {
		return false
	}
	for _, s := range f.Semantic.Candidates {
		if _, err := ts.opts.LookPath(s.Command); err == nil {
			return true
		}
	}
	return false
}

// withGate names the tool that checked the edit in the result data, as
// gate.Result does, so that every write says what checked it.
func withGate(res *registry.Result, id string) *registry.Result {
	var data map[string]any
	if json.Unmarshal(res.Data, &data) != nil || data == nil {
		return res
	}
	if _, ok := data["gate"]; !ok {
		data["gate"] = id
		if b, err := json.Marshal(data); err == nil {
			res.Data = b
		}
	}
	return res
}
