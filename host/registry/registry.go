// Package registry holds the tools langhost serves — CLI tools from language
// specs and semantic operations from plugins — under ids "<language>.<name>",
// with their input schemas, and validates input before any tool runs.
package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/langhost/langhost/internal/textdist"
	"github.com/langhost/langhost/parsers"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/langhost/langhost/plugins/pluginapi/inputname"
)

// Kinds of tools.
const (
	KindCLI      = "cli"      // a command line tool from a language spec
	KindSemantic = "semantic" // an operation served by a semantic agent plugin
)

// Tool is a registered tool.
type Tool struct {
	ID                   string             `json:"id"`
	Language             string             `json:"language"`
	Name                 string             `json:"name"`
	Description          string             `json:"description"`
	Kind                 string             `json:"kind"`
	Categories           []string           `json:"categories,omitempty"`
	InputSchema          *jsonschema.Schema `json:"inputSchema"`
	OutputSchema         *jsonschema.Schema `json:"outputSchema,omitempty"`
	RequiresConfirmation bool               `json:"requiresConfirmation"`
	ReadOnly             bool               `json:"readOnly"`
	Idempotent           bool               `json:"idempotent"`
	// SideEffects says what the tool may change: none, workspace, external.
	SideEffects  string   `json:"sideEffects"`
	FailureCodes []string `json:"failureCodes"`
	// WorkspaceCode names, in one clause, the code the workspace controls
	// that the tool runs (its tests, build scripts, a linter's config, a
	// language server's project build); empty when it runs none. In an
	// untrusted workspace such a tool runs only with the user's consent
	// (Call.WorkspaceCode).
	WorkspaceCode string   `json:"workspaceCode,omitempty"`
	Source        string   `json:"source"`            // spec file the tool came from
	Command       []string `json:"command,omitempty"` // CLI tools: the argv template
	Version       string   `json:"version"`           // version of the tool contract

	Handler Handler `json:"-"`
	// LoadSchemas, if set, supplies InputSchema and OutputSchema when the
	// tool is first looked up: building schemas by reflection for every
	// tool would dominate start-up, and a run needs one.
	LoadSchemas func() (in, out *jsonschema.Schema) `json:"-"`
	// LoadOutputSchema, if set, supplies OutputSchema instead, apart from
	// the input schema: a caller that needs the input schema alone
	// (ToolInput: an MCP tools/list without output schemas) then does
	// not pay for decoding the output schema, often the larger.
	LoadOutputSchema func() *jsonschema.Schema `json:"-"`
	loadOnce         sync.Once
	outOnce          sync.Once

	// The input schema is compiled on first use, for the same reason.
	resolveOnce sync.Once
	resolved    *jsonschema.Resolved
	resolveErr  error
}

// Handler runs a tool.
type Handler interface {
	Call(ctx context.Context, call Call) (*Result, error)
}

// Warmer is a Handler that can get ready before its first call: a
// semantic tool starts its plugin and language server, which takes
// seconds. Handlers that share what Warm prepares (the tools of one
// language) may be warmed once for all.
type Warmer interface {
	Warm(ctx context.Context) error
}

// Call is one invocation of a tool. Input has been validated against the
// tool's input schema.
type Call struct {
	Input     map[string]any
	Confirmed bool // the caller allowed side effects
	// WorkspaceCode is the user's consent to run code the workspace
	// controls: a trusted workspace, a per-call consent on the CLI
	// (--allow-workspace-code) or an MCP client's approval of a tool that
	// says it runs such code.
	WorkspaceCode bool
	// Progress, if set, receives progress reports of long runs.
	Progress func(message string, percent float64)
}

// Result is the outcome of a tool call that ran. A tool reporting failure
// (a compile error) is a Result with OK false, not an error.
//
// Every result has the same shape whatever produced it: diagnostics in the
// one shape of package diagnostic (workspace-relative "/" paths, sorted,
// no duplicates) with their counts, test outcomes in Tests, the files a
// format check would change in Files. A semantic operation's own result
// (Data) is merged into the result's JSON object rather than nested under
// "data"; see MarshalJSON.
type Result struct {
	OK              bool                    `json:"ok"`
	ExitCode        int                     `json:"exit_code"`
	DurationMS      float64                 `json:"duration_ms"`
	Command         []string                `json:"command,omitempty"` // argv that ran
	UsedFallback    bool                    `json:"used_fallback,omitempty"`
	Stdout          string                  `json:"stdout,omitempty"`
	Stderr          string                  `json:"stderr,omitempty"`
	StdoutTruncated bool                    `json:"stdout_truncated,omitempty"`
	StderrTruncated bool                    `json:"stderr_truncated,omitempty"`
	Outputs         map[string]any          `json:"outputs,omitempty"` // parsed outputs by parser name
	Diagnostics     []diagnostic.Diagnostic `json:"diagnostics"`
	Counts          diagnostic.Counts       `json:"counts"`
	// Tests is the outcome of a test run, when the tool reports one.
	Tests *parsers.TestReport `json:"tests,omitempty"`
	// Files are the files a check would change (gofmt -l, prettier
	// --check), workspace-relative; present, maybe empty, for checks.
	Files []string `json:"files,omitzero"`
	// Data is a semantic operation's result, a JSON object whose keys
	// appear beside the ones above.
	Data     json.RawMessage `json:"data,omitempty"`
	Duration time.Duration   `json:"-"`
}

// resultFields is Result without its methods, for encoding.
type resultFields Result

// MarshalJSON writes the result as one object: an object Data's keys are
// merged in beside the result's own (which win a clash with a key the
// result has), so that readers find an operation's answer at the top
// level, not under data.data. Data that is not an object stays under
// "data".
func (r Result) MarshalJSON() ([]byte, error) {
	if r.Diagnostics == nil {
		r.Diagnostics = []diagnostic.Diagnostic{}
	}
	data := bytes.TrimSpace(r.Data)
	if len(data) == 0 || data[0] != '{' {
		return json.Marshal(resultFields(r))
	}
	r.Data = nil
	own, err := json.Marshal(resultFields(r))
	if err != nil {
		return nil, err
	}
	var ownKeys, extra map[string]json.RawMessage
	if err := json.Unmarshal(own, &ownKeys); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &extra); err != nil {
		return nil, fmt.Errorf("result data: %w", err)
	}
	// The result's own keys first, as encoding/json writes them, then
	// the operation's in sorted order.
	buf := bytes.NewBuffer(own[:len(own)-1])
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		if _, clash := ownKeys[k]; clash {
			continue
		}
		key, _ := json.Marshal(k)
		buf.WriteByte(',')
		buf.Write(key)
		buf.WriteByte(':')
		buf.Write(extra[k])
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON wrote: the keys that are not
// fields of Result become Data, and so do "files" and "tests" when they
// are an operation's (a rename's list of file diffs), not the result's.
func (r *Result) UnmarshalJSON(b []byte) error {
	var w struct {
		resultFields
		Files json.RawMessage `json:"files"`
		Tests json.RawMessage `json:"tests"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*r = Result(w.resultFields)
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	for _, k := range resultKeys {
		if k != "files" && k != "tests" {
			delete(all, k)
		}
	}
	var files []string
	if len(w.Files) > 0 && json.Unmarshal(w.Files, &files) == nil {
		r.Files = files
		delete(all, "files")
	}
	var tests *parsers.TestReport
	if len(w.Tests) > 0 && json.Unmarshal(w.Tests, &tests) == nil && tests != nil {
		r.Tests = tests
		delete(all, "tests")
	}
	if len(r.Data) > 0 || len(all) == 0 {
		return nil
	}
	data, err := json.Marshal(all)
	if err != nil {
		return err
	}
	r.Data = data
	return nil
}

// resultKeys are the JSON keys of Result's own fields.
var resultKeys = func() []string {
	t := reflect.TypeFor[resultFields]()
	keys := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}()

// Registry is a set of tools indexed by id. It is built once and then read
// concurrently: a lookup by id is a map access whatever the number of
// tools; only a miss ("did you mean") looks at every id.
type Registry struct {
	tools map[string]*Tool

	mu     sync.Mutex
	sorted []*Tool // by id; nil after Add, rebuilt on the next listing
}

// New returns an empty registry.
func New() *Registry { return &Registry{tools: map[string]*Tool{}} }

// Add registers t.
func (r *Registry) Add(t *Tool) error {
	if _, dup := r.tools[t.ID]; dup {
		return fmt.Errorf("tool %q registered twice", t.ID)
	}
	r.tools[t.ID] = t
	r.mu.Lock()
	r.sorted = nil
	r.mu.Unlock()
	return nil
}

// inOrder returns the tools sorted by id, sorting once after the last Add.
// The slice is shared: callers copy it before handing it out.
func (r *Registry) inOrder() []*Tool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sorted == nil {
		r.sorted = slices.SortedFunc(maps.Values(r.tools), func(a, b *Tool) int { return strings.Compare(a.ID, b.ID) })
	}
	return r.sorted
}

// load fills in lazily supplied schemas.
func (t *Tool) load() *Tool {
	t.loadInput()
	if t.LoadOutputSchema != nil {
		t.outOnce.Do(func() { t.OutputSchema = t.LoadOutputSchema() })
	}
	return t
}

// loadInput fills in the lazily supplied input schema, and the output
// schema when LoadSchemas supplies both.
func (t *Tool) loadInput() *Tool {
	t.loadOnce.Do(func() {
		if t.LoadSchemas != nil {
			in, out := t.LoadSchemas()
			t.InputSchema = in
			if t.LoadOutputSchema == nil {
				t.OutputSchema = out
			}
		}
		if t.InputSchema == nil {
			t.InputSchema = &jsonschema.Schema{Type: "object"}
		}
	})
	return t
}

// Has reports whether a tool with the given id is registered.
func (r *Registry) Has(id string) bool {
	_, ok := r.tools[id]
	return ok
}

// Tool returns the tool with the given id, or a failure.NotFound error with
// the closest ids as suggestions.
func (r *Registry) Tool(id string) (*Tool, error) {
	if t, ok := r.tools[id]; ok {
		return t.load(), nil
	}
	ids := r.IDs()
	err := &failure.Error{Code: failure.NotFound, Message: fmt.Sprintf("unknown tool %q", id)}
	if s := textdist.Ranked(id, ids, 5); len(s) > 0 {
		err.Message += fmt.Sprintf(" (did you mean %s?)", strings.Join(s, ", "))
		err.Details = map[string]any{"candidates": s}
	}
	return nil, err
}

// ToolInput is Tool with the input schema only: a tool whose output
// schema is supplied apart (LoadOutputSchema) has none until Tool or Tools
// loads it, so the caller must not read OutputSchema.
func (r *Registry) ToolInput(id string) (*Tool, error) {
	if t, ok := r.tools[id]; ok {
		return t.loadInput(), nil
	}
	return r.Tool(id)
}

// IDs returns every tool id, sorted.
func (r *Registry) IDs() []string {
	sorted := r.inOrder()
	ids := make([]string, len(sorted))
	for i, t := range sorted {
		ids[i] = t.ID
	}
	return ids
}

// List returns every tool, sorted by id, without loading the schemas a
// tool supplies lazily (LoadSchemas): enough to choose tools by id,
// language, category or annotations, at a fraction of the cost for
// hundreds of tools. Tool returns one with its schemas.
func (r *Registry) List() []*Tool {
	return slices.Clone(r.inOrder())
}

// Tools returns every tool with its schemas, sorted by id.
func (r *Registry) Tools() []*Tool {
	sorted := r.inOrder()
	out := make([]*Tool, len(sorted))
	for i, t := range sorted {
		out[i] = t.load()
	}
	return out
}

// ValidateInput checks input against the tool's schema. The error is a
// failure.InvalidInput naming the offending key.
func (t *Tool) ValidateInput(input map[string]any) error {
	if input == nil {
		input = map[string]any{}
	}
	t.loadInput()
	t.resolveOnce.Do(func() { t.resolved, t.resolveErr = t.InputSchema.Resolve(nil) })
	if t.resolveErr != nil {
		return failure.Wrap(failure.Internal, t.resolveErr, "tool %s: input schema", t.ID)
	}
	// A deprecated spelling (newName) is the current name (new_name) from
	// here on: the handler sees only current names.
	if _, err := inputname.Canonicalize(input, func(k string) bool { _, ok := t.InputSchema.Properties[k]; return ok }); err != nil {
		return err
	}
	if err := t.unknownInput(input); err != nil {
		return err
	}
	if err := t.missingRequired(input); err != nil {
		return err
	}
	if err := t.resolved.Validate(input); err != nil {
		return &failure.Error{Code: failure.InvalidInput, Field: inputKey(t, input, err),
			Message: fmt.Sprintf("input does not match the schema of %s", t.ID), Err: err}
	}
	if v, ok := t.Handler.(InputValidator); ok {
		return v.ValidateInput(input)
	}
	return nil
}

// DeprecatedInputs maps the deprecated spellings the tool still accepts
// (newName) to its inputs (new_name); nil when there are none.
func (t *Tool) DeprecatedInputs() map[string]string {
	t.loadInput()
	if t.InputSchema == nil {
		return nil
	}
	return inputname.Aliases(slices.Sorted(maps.Keys(t.InputSchema.Properties)))
}

// InputValidator is a Handler that checks input beyond its schema (paths,
// option-like values) without running the tool.
type InputValidator interface {
	ValidateInput(input map[string]any) error
}

// unknownInput reports the first input key, in sorted order, that a closed
// schema does not have, with the closest names, in words a user can act on.
func (t *Tool) unknownInput(input map[string]any) error {
	ap := t.InputSchema.AdditionalProperties
	if ap == nil || ap.Not == nil {
		return nil
	}
	names := slices.Sorted(maps.Keys(t.InputSchema.Properties))
	for _, key := range slices.Sorted(maps.Keys(input)) {
		if _, ok := t.InputSchema.Properties[key]; ok {
			continue
		}
		e := &failure.Error{Code: failure.InvalidInput, Field: key, Message: fmt.Sprintf("unknown input %q for %s", key, t.ID)}
		if best := textdist.Ranked(key, names, 3); len(best) > 0 {
			e.Message += fmt.Sprintf(" (did you mean %s?)", strings.Join(best, ", "))
			e.Details = map[string]any{"candidates": best}
		}
		if len(names) == 0 {
			e.Message += "; it takes no inputs"
		} else {
			e.Message += "; inputs: " + strings.Join(names, ", ")
		}
		return e
	}
	return nil
}

// inputKey finds which input key a validation error is about, so that the
// caller is told which value to fix.
func inputKey(t *Tool, input map[string]any, err error) string {
	msg := err.Error()
	for name := range t.InputSchema.Properties {
		if strings.Contains(msg, `"`+name+`"`) || strings.Contains(msg, "/"+name) {
			return name
		}
	}
	for name := range input {
		if strings.Contains(msg, name) {
			return name
		}
	}
	return ""
}

// Call validates input and runs the tool.
func (r *Registry) Call(ctx context.Context, id string, call Call) (*Result, error) {
	t, err := r.ToolInput(id) // validating the input needs no output schema
	if err != nil {
		return nil, err
	}
	if err := t.ValidateInput(call.Input); err != nil {
		return nil, err
	}
	if t.RequiresConfirmation && !call.Confirmed {
		return nil, &failure.Error{Code: failure.Precondition,
			Message: fmt.Sprintf("%s changes files and needs confirmation: pass --yes or allow it in the config (tools.allow)", id)}
	}
	if t.WorkspaceCode != "" && !call.WorkspaceCode {
		return nil, WorkspaceCodeRefusal(t)
	}
	return t.Handler.Call(ctx, call)
}

// WorkspaceCodeRefusal is the error of a call that would run the
// workspace's code without the user's consent. It names both ways
// forward.
func WorkspaceCodeRefusal(t *Tool) error {
	return &failure.Error{Code: failure.Precondition, Field: "workspace_code",
		Message: fmt.Sprintf("%s runs code the workspace controls (%s) and this workspace is not trusted: "+
			"run `langhost trust` to trust it, or pass --allow-workspace-code to allow it for this call", t.ID, t.WorkspaceCode)}
}
