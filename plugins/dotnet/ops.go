package dotnet

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/langhost/langhost/plugins/pluginapi"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// ListProjectsInput is the input of list_projects.
type ListProjectsInput struct{}

// ProjectInput is the input of project_info, package_references,
// source_files and namespaces.
type ProjectInput struct {
	Project         string `json:"project,omitempty" jsonschema:"project path relative to the workspace root, a directory holding one .csproj, or a project name; optional when the workspace has one project (namespaces: all projects)"`
	Configuration   string `json:"configuration,omitempty" jsonschema:"build configuration used to evaluate conditions (default Debug)"`
	Platform        string `json:"platform,omitempty" jsonschema:"build platform (default AnyCPU)"`
	TargetFramework string `json:"target_framework,omitempty" jsonschema:"target framework to evaluate for, e.g. net8.0 (default: the first declared)"`
}

// ProjectReferencesInput is the input of project_references.
type ProjectReferencesInput struct {
	Project         string `json:"project,omitempty" jsonschema:"project path relative to the workspace root, a directory holding one .csproj, or a project name"`
	Transitive      bool   `json:"transitive,omitempty" jsonschema:"follow references of references (cycle-safe)"`
	Configuration   string `json:"configuration,omitempty" jsonschema:"build configuration used to evaluate conditions (default Debug)"`
	Platform        string `json:"platform,omitempty" jsonschema:"build platform (default AnyCPU)"`
	TargetFramework string `json:"target_framework,omitempty" jsonschema:"target framework of the starting project"`
}

func (in ProjectInput) options() Options {
	return Options{Configuration: in.Configuration, Platform: in.Platform, TargetFramework: in.TargetFramework}
}

// operation binds a catalogue entry to its implementation.
type operation struct {
	name, description string
	input, output     reflect.Type
	run               func(ctx context.Context, root string, raw json.RawMessage) (any, error)
}

func operations() []operation {
	projectOp := func(f func(ctx context.Context, root string, in ProjectInput) (any, error)) func(context.Context, string, json.RawMessage) (any, error) {
		return func(ctx context.Context, root string, raw json.RawMessage) (any, error) {
			var in ProjectInput
			if err := decodeInput(raw, &in); err != nil {
				return nil, err
			}
			return f(ctx, root, in)
		}
	}
	return []operation{
		{
			name:        "list_projects",
			description: "List the solutions and C# projects of the workspace (a root .sln/.slnx wins; otherwise every .csproj).",
			input:       reflect.TypeFor[ListProjectsInput](), output: reflect.TypeFor[Workspace](),
			run: func(ctx context.Context, root string, raw json.RawMessage) (any, error) {
				var in ListProjectsInput
				if err := decodeInput(raw, &in); err != nil {
					return nil, err
				}
				return ListProjects(ctx, root)
			},
		},
		{
			name:        "project_info",
			description: "Evaluate a C# project file: style, target frameworks, output type, namespaces, references, packages and source files.",
			input:       reflect.TypeFor[ProjectInput](), output: reflect.TypeFor[Project](),
			run: projectOp(func(ctx context.Context, root string, in ProjectInput) (any, error) {
				return ProjectInfo(ctx, root, in.Project, in.options())
			}),
		},
		{
			name:        "project_references",
			description: "List the project references of a C# project, optionally transitively.",
			input:       reflect.TypeFor[ProjectReferencesInput](), output: reflect.TypeFor[ProjectReferenceGraph](),
			run: func(ctx context.Context, root string, raw json.RawMessage) (any, error) {
				var in ProjectReferencesInput
				if err := decodeInput(raw, &in); err != nil {
					return nil, err
				}
				return ProjectReferences(ctx, root, in.Project, in.Transitive,
					Options{Configuration: in.Configuration, Platform: in.Platform, TargetFramework: in.TargetFramework})
			},
		},
		{
			name:        "package_references",
			description: "List the NuGet packages a C# project references, with versions resolved from central package management.",
			input:       reflect.TypeFor[ProjectInput](), output: reflect.TypeFor[PackageList](),
			run: projectOp(func(ctx context.Context, root string, in ProjectInput) (any, error) {
				return PackageReferences(ctx, root, in.Project, in.options())
			}),
		},
		{
			name:        "source_files",
			description: "List the C# source files a project compiles (default globs, Compile Include/Remove, conditions evaluated).",
			input:       reflect.TypeFor[ProjectInput](), output: reflect.TypeFor[SourceFileList](),
			run: projectOp(func(ctx context.Context, root string, in ProjectInput) (any, error) {
				return SourceFiles(ctx, root, in.Project, in.options())
			}),
		},
		{
			name:        "namespaces",
			description: "List the namespaces declared in each project's source files.",
			input:       reflect.TypeFor[ProjectInput](), output: reflect.TypeFor[[]ProjectNamespaces](),
			run: projectOp(func(ctx context.Context, root string, in ProjectInput) (any, error) {
				return Namespaces(ctx, root, in.Project, in.options())
			}),
		},
	}
}

// Operations is the catalogue of project-structure operations, with their
// JSON Schemas, as an agent describes them.
func Operations() []pluginapi.Operation {
	var out []pluginapi.Operation
	for _, op := range operations() {
		out = append(out, pluginapi.Operation{
			Name:         op.name,
			Description:  op.description,
			InputSchema:  mustSchema(op.input),
			OutputSchema: mustSchema(op.output),
			SideEffects:  pluginapi.SideEffectsNone,
			FailureCodes: []string{string(failure.InvalidInput), string(failure.NotFound), string(failure.Ambiguous)},
			// Parsed from the project files in Go: no MSBuild, no server.
			NoServer: true,
		})
	}
	return out
}

// IsOperation reports whether name is a project-structure operation.
func IsOperation(name string) bool {
	for _, op := range operations() {
		if op.name == name {
			return true
		}
	}
	return false
}

// mustSchema infers a JSON Schema; the types are fixed at compile time, so
// a failure is a programming error caught by the tests.
func mustSchema(t reflect.Type) json.RawMessage {
	s, err := jsonschema.ForType(t, nil)
	if err != nil {
		panic(err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return b
}

// Invoke runs the operation op on the workspace at root.
func Invoke(ctx context.Context, root string, op string, input json.RawMessage) (json.RawMessage, error) {
	for _, o := range operations() {
		if o.name != op {
			continue
		}
		res, err := o.run(ctx, root, input)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(res)
		if err != nil {
			return nil, failure.Wrap(failure.Internal, err, "encode %s result", op)
		}
		return b, nil
	}
	var names []string
	for _, o := range operations() {
		names = append(names, o.name)
	}
	return nil, &failure.Error{Code: failure.NotFound, Field: "operation",
		Message: fmt.Sprintf("unknown operation %q (have %s)", op, strings.Join(names, ", "))}
}

// decodeInput decodes a JSON object into dst, naming any unknown key.
func decodeInput(raw json.RawMessage, dst any) error {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return failure.Wrap(failure.InvalidInput, err, "input must be a JSON object")
	}
	known := map[string]bool{}
	t := reflect.TypeOf(dst).Elem()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		known[name] = true
	}
	var unknown []string
	for k := range keys {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return &failure.Error{Code: failure.InvalidInput, Field: unknown[0],
			Message: fmt.Sprintf("unknown input key %q", unknown[0])}
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		field := ""
		if te, ok := err.(*json.UnmarshalTypeError); ok {
			field = te.Field
		}
		return &failure.Error{Code: failure.InvalidInput, Field: field, Message: "invalid input", Err: err}
	}
	return nil
}
