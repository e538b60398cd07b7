// Package semantictool registers the semantic operations of every language
// with a `semantic:` block. The host knows no operation by name: the
// language's agent plugin describes what it serves (pluginapi.Description,
// cached by the plugin manager), each described operation becomes a tool
// `<lang>.<op>`, and a call forwards to the plugin, which the manager
// starts on first use.
package semantictool

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hashicorp/go-hclog"

	"github.com/langhost/langhost/host/plugins"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/pluginapi"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// The built-in plugins a language can be served by (plugins.Builtins).
const (
	// BuiltinPlugin bridges to the language server of the spec.
	BuiltinPlugin = "semantic"
	// RoslynPlugin is the RoslynCodingAgent: the bridge plus the C#
	// project-structure operations, for specs with projectOperations.
	RoslynPlugin = "roslyn"
)

// Plugin returns the launch of the plugin serving s: the external plugin
// it names, or the built-in one it needs.
func Plugin(s *spec.Semantic) (plugins.Launch, error) {
	if s.Plugin != "" {
		return plugins.Launch{Name: s.Plugin, Path: s.Plugin}, nil
	}
	name := BuiltinPlugin
	if s.ProjectOperations {
		name = RoslynPlugin
	}
	return plugins.Builtin(name)
}

// Register adds the semantic tools of every loaded language to reg. A
// language whose plugin cannot be described (not installed, broken, a
// description that fails validation) gets no semantic tools: its problem
// is returned, naming the spec file and field, and the other languages are
// registered. Languages served by a built-in plugin that this program does
// not carry (a host built without plugins.Builtins) are skipped. The error
// is for what stops every language: a cancelled ctx.
//
// trusted says whether the user trusts the workspace: a server with a safe
// mode (spec.SafeMode) then starts as usual, and in an untrusted one in
// its safe mode; the tools record what workspace code they run
// (registry.Tool.WorkspaceCode).
func Register(ctx context.Context, reg *registry.Registry, set *spec.Set, ws *workspace.Root, trusted bool, manager *plugins.Manager, logger hclog.Logger) ([]*spec.FileError, error) {
	var problems []*spec.FileError
	memo := &schemaMemo{loads: map[string]func() *jsonschema.Schema{}}
	for _, f := range set.Languages {
		s := f.Semantic
		if s == nil {
			continue
		}
		err := register(ctx, reg, f, ws, trusted, manager, memo, logger)
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return problems, failure.Wrap(failure.CodeOf(ctx.Err()), err, "register the semantic tools of %s", f.Language.ID)
		default:
			field := "semantic"
			if s.Plugin != "" {
				field = "semantic.plugin"
			}
			problems = append(problems, &spec.FileError{File: f.Source, Problems: []spec.Problem{{
				File: f.Source, Field: field, Message: "no semantic tools: " + err.Error()}}})
		}
	}
	return problems, nil
}

// register adds the tools of one language.
func register(ctx context.Context, reg *registry.Registry, f *spec.File, ws *workspace.Root, trusted bool, manager *plugins.Manager, memo *schemaMemo, logger hclog.Logger) error {
	launch, err := Plugin(f.Semantic)
	if err != nil {
		return err
	}
	if launch.Builtin != "" && !manager.HasBuiltin(launch.Builtin) {
		logger.Debug("built-in plugin not in this program: no semantic tools", "language", f.Language.ID, "plugin", launch.Builtin)
		return nil
	}
	cfg, err := json.Marshal(f.Semantic)
	if err != nil {
		return fmt.Errorf("semantic block: %w", err)
	}
	desc, err := manager.Describe(ctx, launch, cfg)
	if err != nil {
		return err
	}
	if !trusted {
		// The plugin starts a server that has a safe mode in it. Clip:
		// the Describe above may keep cfg.
		cfg = append(slices.Clip(cfg[:len(cfg)-1]), `,"untrusted":true}`...)
	}
	serverCode := serverWorkspaceCode(f.Semantic, trusted)
	warmOp := ""
	for _, op := range desc.Operations {
		if op.Name == warmOperation && op.SideEffects != pluginapi.SideEffectsWorkspace && !op.NoServer {
			warmOp = op.Name
		}
	}
	launch.Name = f.Language.ID + "-agent"
	pspec := plugins.Spec{Launch: launch, Open: pluginapi.OpenRequest{Root: ws.Dir(), Language: f.Language.ID, Config: cfg}}
	tools := make([]*registry.Tool, 0, len(desc.Operations))
	ids := make(map[string]bool, len(desc.Operations))
	for _, op := range desc.Operations {
		t := tool(f, op, &pluginOp{manager: manager, spec: pspec, op: op.Name, packet: defaultPacket(f, op), warmOp: warmOp}, reg, memo)
		t.WorkspaceCode = op.WorkspaceCode
		if t.WorkspaceCode == "" && !op.NoServer {
			t.WorkspaceCode = serverCode
		}
		if reg.Has(t.ID) || ids[t.ID] {
			return fmt.Errorf("plugin %s: operation %s: the tool id %s is taken", desc.Name, op.Name, t.ID)
		}
		ids[t.ID] = true
		tools = append(tools, t)
	}
	// All or nothing: a language never ends up with half its tools.
	for _, t := range tools {
		if err := reg.Add(t); err != nil {
			return err
		}
	}
	return nil
}

// warmOperation is the operation that warms a plugin's language server:
// it starts the server and waits until the workspace has loaded, and asks
// it nothing else.
const warmOperation = "load_status"

// serverWorkspaceCode says what workspace code starting the language
// server of s runs, in a clause naming the server, or "" when it runs
// none. Which candidate starts depends on what is installed then, so the
// first that would run some is named.
func serverWorkspaceCode(s *spec.Semantic, trusted bool) string {
	srv, code := s.ServerWorkspaceCode(trusted)
	if srv == nil {
		return ""
	}
	return fmt.Sprintf("its language server %s: %s", cmp.Or(srv.Name, srv.Command), code)
}

// tool builds the registry entry of op. Its id is <lang>.<op>, or
// <lang>.semantic_<op> when a CLI tool of the spec already has that id (a
// spec's go.format runs gofmt; the language server's format is then
// go.semantic_format).
func tool(f *spec.File, op pluginapi.Operation, h registry.Handler, reg *registry.Registry, memo *schemaMemo) *registry.Tool {
	readOnly := op.SideEffects == pluginapi.SideEffectsNone || op.SideEffects == ""
	id := f.Language.ID + "." + op.Name
	if reg.Has(id) {
		id = f.Language.ID + ".semantic_" + op.Name
	}
	return &registry.Tool{
		ID:               id,
		Language:         f.Language.ID,
		Name:             op.Name,
		Description:      op.Description,
		Kind:             registry.KindSemantic,
		Categories:       []string{f.Language.ID, "semantic"},
		LoadSchemas:      memo.input(op.InputSchema),
		LoadOutputSchema: memo.output(op.OutputSchema),
		ReadOnly:         readOnly,
		Idempotent:       readOnly,
		SideEffects:      firstNonEmpty(op.SideEffects, pluginapi.SideEffectsNone),
		FailureCodes:     op.FailureCodes,
		Source:           f.Source,
		Version:          "1",
		Handler:          h,
	}
}

// schemaMemo decodes each schema once, on first use, and shares the
// result read-only between the tools that have it: every language the
// same plugin serves has the same operations, decoding a JSON Schema takes
// long, and a run needs one tool's schemas. Input and output schemas are
// decoded apart: an MCP tools/list needs only the input schemas, and the
// output schemas are most of a description.
type schemaMemo struct {
	mu    sync.Mutex
	loads map[string]func() *jsonschema.Schema
}

// input returns the loader of the input schema raw.
func (m *schemaMemo) input(raw json.RawMessage) func() (in, out *jsonschema.Schema) {
	load := m.get("in\x00"+string(raw), func() *jsonschema.Schema { return schema(raw) })
	return func() (*jsonschema.Schema, *jsonschema.Schema) { return load(), nil }
}

// output returns the loader of the result schema of an operation whose
// output schema is raw.
func (m *schemaMemo) output(raw json.RawMessage) func() *jsonschema.Schema {
	return m.get("out\x00"+string(raw), func() *jsonschema.Schema { return resultSchema(schema(raw)) })
}

func (m *schemaMemo) get(key string, decode func() *jsonschema.Schema) func() *jsonschema.Schema {
	m.mu.Lock()
	defer m.mu.Unlock()
	f := m.loads[key]
	if f == nil {
		f = sync.OnceValue(decode)
		m.loads[key] = f
	}
	return f
}

// schema decodes a schema the description's validation accepted.
func schema(raw json.RawMessage) *jsonschema.Schema {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil // not after validation; the registry then uses an open schema
	}
	return &s
}

// resultSchema is the schema of a registry.Result whose data is described
// by data: every tool's result has the same envelope, with the operation's
// own keys beside the result's (registry.Result.MarshalJSON).
func resultSchema(data *jsonschema.Schema) *jsonschema.Schema {
	s := &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"ok":          {Type: "boolean"},
			"exit_code":   {Type: "integer"},
			"duration_ms": {Type: "number"},
			"diagnostics": {Type: "array"},
			"counts":      {Type: "object"},
		},
		Required: []string{"ok"},
	}
	if data == nil {
		return s
	}
	for name, p := range data.Properties {
		if _, own := s.Properties[name]; !own {
			s.Properties[name] = p
		}
	}
	s.Defs = data.Defs
	return s
}

// pluginOp runs an operation in the language's agent plugin.
type pluginOp struct {
	manager *plugins.Manager
	spec    plugins.Spec
	op      string
	// packet is the spec's default packet, for an operation that takes one.
	packet string
	// warmOp, if set, is the read-only operation Warm runs so that the
	// language server has started and loaded the workspace when it
	// returns: a plugin may start its server only with the first
	// operation that needs it (the C# agent does).
	warmOp string
}

// defaultPacket is the language's default packet if op takes a packet
// input, else "".
func defaultPacket(f *spec.File, op pluginapi.Operation) string {
	if f.Packet == "" {
		return ""
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(op.InputSchema, &s) != nil || s.Properties["packet"] == nil {
		return ""
	}
	return f.Packet
}

// Warm starts the language's plugin, and so its language server, without
// running an operation (registry.Warmer). Callers that arrive meanwhile
// share the start (plugins.Manager.Get).
func (h *pluginOp) Warm(ctx context.Context) error {
	agent, err := h.manager.Get(ctx, h.spec, nil)
	if err != nil || h.warmOp == "" {
		return err
	}
	_, err = agent.Invoke(ctx, pluginapi.InvokeRequest{Operation: h.warmOp, Input: json.RawMessage("{}")}, nil)
	return err
}

var _ registry.Warmer = (*pluginOp)(nil)

func (h *pluginOp) Call(ctx context.Context, call registry.Call) (*registry.Result, error) {
	start := time.Now()
	progress := func(p pluginapi.Progress) {
		if call.Progress != nil {
			call.Progress(p.Message, p.Percent)
		}
	}
	agent, err := h.manager.Get(ctx, h.spec, progress)
	if err != nil {
		return nil, err
	}
	in := call.Input
	if _, asked := in["packet"]; h.packet != "" && !asked {
		in = maps.Clone(in)
		if in == nil {
			in = map[string]any{}
		}
		in["packet"] = h.packet
	}
	input, err := json.Marshal(in)
	if err != nil {
		return nil, failure.Wrap(failure.InvalidInput, err, "encode input")
	}
	out, err := agent.Invoke(ctx, pluginapi.InvokeRequest{Operation: h.op, Input: input, Confirmed: call.Confirmed}, progress)
	if err != nil {
		return nil, err
	}
	if !json.Valid(out) {
		// It would break every envelope the result is printed in.
		return nil, failure.New(failure.Internal, "plugin %s: %s returned invalid JSON", h.spec.Launch.Name, h.op)
	}
	d := time.Since(start)
	res := &registry.Result{OK: true, Data: out, Duration: d, DurationMS: float64(d.Microseconds()) / 1000,
		Diagnostics: []diagnostic.Diagnostic{}}
	// An operation that reports diagnostics (diagnostics, edits checked
	// before and after) gives them in the one shape: they are the
	// result's, counted like a CLI tool's.
	// Only an output holding the string "diagnostics" (as a key or a
	// value; inside another string its quotes would be escaped) is
	// decoded: decoding a large result, a page of references, costs two
	// more passes over it.
	var reported struct {
		Diagnostics []diagnostic.Diagnostic `json:"diagnostics"`
	}
	if bytes.Contains(out, diagnosticsKey) && json.Unmarshal(out, &reported) == nil && reported.Diagnostics != nil {
		// Sorted, not deduplicated: the plugin removed the duplicates
		// before its detail level dropped the end positions, and two
		// diagnostics that differ only in their end are two.
		res.Diagnostics = slices.SortedStableFunc(slices.Values(reported.Diagnostics), diagnostic.Compare)
	}
	res.Counts = diagnostic.Count(res.Diagnostics)
	return res, nil
}

var diagnosticsKey = []byte(`"diagnostics"`)

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
