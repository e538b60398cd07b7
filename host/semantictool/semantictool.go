// Package semantictool registers the semantic operations of every language
// whose spec names a language server: each `<lang>.<op>` tool forwards to
// the language's agent plugin, which the plugin manager starts on first use.
package semantictool

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/langhost/langhost/host/plugins"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/parsers"
	"github.com/langhost/langhost/plugins/dotnet"
	"github.com/langhost/langhost/plugins/pluginapi"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/langhost/langhost/plugins/semantic"
)

// BuiltinPlugin is the name of the semantic agent compiled into langhost.
const BuiltinPlugin = "semantic"

// Register adds the semantic tools of every loaded language to reg.
func Register(reg *registry.Registry, set *spec.Set, ws *workspace.Root, manager *plugins.Manager) error {
	ops := operations(semantic.Summaries(), semantic.Schemas)
	var projectOps []operation
	for _, f := range set.Languages {
		s := f.Semantic
		if s == nil {
			continue
		}
		cfg, err := json.Marshal(s)
		if err != nil {
			return fmt.Errorf("%s: semantic block: %w", f.Source, err)
		}
		launch := plugins.Launch{Name: f.Language.ID + "-agent", Path: s.Plugin}
		if s.Plugin == "" {
			launch, err = plugins.Builtin(BuiltinPlugin)
			if err != nil {
				return err
			}
			launch.Name = f.Language.ID + "-agent"
		}
		pspec := plugins.Spec{Launch: launch, Open: pluginapi.OpenRequest{Root: ws.Dir(), Language: f.Language.ID, Config: cfg}}
		for _, op := range ops {
			h := &pluginOp{manager: manager, spec: pspec, op: op.Name}
			if err := reg.Add(tool(f, op, h, reg)); err != nil {
				return err
			}
		}
		if s.ProjectOperations {
			if projectOps == nil {
				projectOps = operations(dotnet.Summaries(), dotnet.Schemas)
			}
			for _, op := range projectOps {
				h := &projectOp{root: ws.Dir(), op: op.Name}
				if err := reg.Add(tool(f, op, h, reg)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// operation is a plugin operation whose schemas are built on first use,
// once, and then shared read-only by every language that serves it.
type operation struct {
	pluginapi.Operation
	schemas func() (in, out *jsonschema.Schema)
}

func operations(ops []pluginapi.Operation, schemas func(string) (in, out json.RawMessage, ok bool)) []operation {
	out := make([]operation, len(ops))
	for i, op := range ops {
		out[i] = operation{Operation: op, schemas: sync.OnceValues(func() (*jsonschema.Schema, *jsonschema.Schema) {
			in, o, _ := schemas(op.Name)
			return schema(in), resultSchema(schema(o))
		})}
	}
	return out
}

// tool builds the registry entry of op. Its id is <lang>.<op>, or
// <lang>.semantic_<op> when a CLI tool of the spec already has that id (a
// spec's go.format runs gofmt; the language server's format is then
// go.semantic_format).
func tool(f *spec.File, op operation, h registry.Handler, reg *registry.Registry) *registry.Tool {
	readOnly := op.SideEffects == "none" || op.SideEffects == ""
	id := f.Language.ID + "." + op.Name
	if reg.Has(id) {
		id = f.Language.ID + ".semantic_" + op.Name
	}
	return &registry.Tool{
		ID:           id,
		Language:     f.Language.ID,
		Name:         op.Name,
		Description:  op.Description,
		Kind:         registry.KindSemantic,
		Categories:   []string{f.Language.ID, "semantic"},
		LoadSchemas:  op.schemas,
		ReadOnly:     readOnly,
		Idempotent:   readOnly,
		SideEffects:  firstNonEmpty(op.SideEffects, "none"),
		FailureCodes: op.FailureCodes,
		Source:       f.Source,
		Version:      "1",
		Handler:      h,
	}
}

func schema(raw json.RawMessage) *jsonschema.Schema {
	if len(raw) == 0 {
		return nil
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil // a plugin's broken schema must not hide its tools; Add uses an open schema
	}
	return &s
}

// resultSchema is the schema of a registry.Result whose data is described
// by data: every tool's result has the same envelope.
func resultSchema(data *jsonschema.Schema) *jsonschema.Schema {
	if data == nil {
		data = &jsonschema.Schema{}
	}
	return &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"ok":          {Type: "boolean"},
			"exitCode":    {Type: "integer"},
			"durationMs":  {Type: "number"},
			"diagnostics": {Type: "array"},
			"data":        data,
		},
		Required: []string{"ok", "data"},
	}
}

// pluginOp runs an operation in the language's agent plugin.
type pluginOp struct {
	manager *plugins.Manager
	spec    plugins.Spec
	op      string
}

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
	input, err := json.Marshal(call.Input)
	if err != nil {
		return nil, failure.Wrap(failure.InvalidInput, err, "encode input")
	}
	out, err := agent.Invoke(ctx, pluginapi.InvokeRequest{Operation: h.op, Input: input, Confirmed: call.Confirmed}, progress)
	if err != nil {
		return nil, err
	}
	return result(out, start), nil
}

// projectOp answers .sln/.csproj structure operations in-process: they
// need no language server.
type projectOp struct {
	root string
	op   string
}

func (h *projectOp) Call(ctx context.Context, call registry.Call) (*registry.Result, error) {
	start := time.Now()
	input, err := json.Marshal(call.Input)
	if err != nil {
		return nil, failure.Wrap(failure.InvalidInput, err, "encode input")
	}
	out, err := dotnet.Invoke(ctx, h.root, h.op, input)
	if err != nil {
		return nil, err
	}
	return result(out, start), nil
}

func result(data json.RawMessage, start time.Time) *registry.Result {
	d := time.Since(start)
	return &registry.Result{OK: true, Data: data, Duration: d, DurationMS: float64(d.Microseconds()) / 1000,
		Diagnostics: []parsers.Diagnostic{}}
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
