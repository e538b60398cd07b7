// Package filetools registers the workspace file tools agents use:
// workspace.read_file, workspace.list_files, workspace.search,
// workspace.write_file, workspace.replace_in_file and workspace.undo.
// Every path is
// confined to the workspace; listing and search respect .gitignore; writes
// are transactions: through the language server's edit_file when one
// serves the file's language, else through the spec's gate tool
// (host/gate), else written unchecked and recorded, saying so.
package filetools

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/langhost/langhost/host/gate"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/internal/toolpath"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Namespace is the id prefix (and registry language) of the tools.
const Namespace = "workspace"

// KindBuiltin is the registry kind of tools built into the host.
const KindBuiltin = "builtin"

// Options are what the tools need from the host.
type Options struct {
	Workspace *workspace.Root
	// Specs map a file to its language by extension.
	Specs *spec.Set
	// Registry is where <lang>.edit_file is looked up (and called).
	Registry *registry.Registry
	// Gate are the settings of gate runs.
	Gate gate.Options
	// LookPath finds language server executables; toolpath.LookPath if nil.
	LookPath func(string) (string, error)
}

// Register adds the workspace tools to reg.
func Register(reg *registry.Registry, opts Options) error {
	if opts.LookPath == nil {
		opts.LookPath = toolpath.LookPath
	}
	if opts.Registry == nil {
		opts.Registry = reg
	}
	opts.Gate.Workspace = opts.Workspace
	ts := &tools{opts: opts}
	readOnly := func(name, desc string, in any, h func(context.Context, registry.Call) (any, error)) *registry.Tool {
		return &registry.Tool{ID: Namespace + "." + name, Name: name, Description: desc,
			Categories: []string{Namespace, "files", "read"}, ReadOnly: true, Idempotent: true, SideEffects: "none",
			InputSchema: schemaOf(in), FailureCodes: codes(failure.InvalidInput, failure.NotFound, failure.Precondition),
			Handler: handler(h)}
	}
	writer := func(name, desc string, in any, h func(context.Context, registry.Call) (any, error)) *registry.Tool {
		return &registry.Tool{ID: Namespace + "." + name, Name: name, Description: desc,
			Categories: []string{Namespace, "files", "edit"}, SideEffects: "workspace", RequiresConfirmation: true,
			InputSchema: schemaOf(in), Handler: handler(h),
			FailureCodes: codes(failure.InvalidInput, failure.NotFound, failure.Precondition, failure.AnchorNotResolved,
				failure.Ambiguous, failure.DiagnosticRegression, failure.WorkspaceApplyFailed, failure.Timeout)}
	}
	for _, t := range []*registry.Tool{
		readOnly("read_file", "Read a text file of the workspace, with line numbers; a line range reads part of it. Binary files are reported, not printed.", readInput{}, ts.read),
		readOnly("list_files", "List the files of the workspace or a directory of it, optionally matching a glob (\"*.go\" matches names, \"src/**/*.ts\" paths); respects .gitignore.", listInput{}, ts.list),
		readOnly("search", "Search file contents with a regular expression (Go RE2 syntax); respects .gitignore; returns path, line, column and the matching line.", searchInput{}, ts.search),
		writer("write_file", "Write a file's whole content (creating it if missing) as a transaction: checked by the language server or the language's gate tool, rejected with diagnostic_regression when it adds errors (policy), recorded for langhost undo.", writeInput{}, ts.write),
		writer("undo", "Undo an applied write or edit transaction (by id, default the newest not undone): restores the files' previous content, refused with precondition_failed naming the files changed since.", undoInput{}, ts.undo),
		writer("replace_in_file", "Replace exact text in a file: each edit's old_text must occur exactly once (else anchor_not_resolved or ambiguous_target); applied as one transaction like write_file.", replaceInput{}, ts.replace),
	} {
		t.Language, t.Kind, t.Version, t.Source = Namespace, KindBuiltin, "1", "builtin"
		if err := reg.Add(t); err != nil {
			return err
		}
	}
	return nil
}

type tools struct {
	opts Options
}

func codes(cs ...failure.Code) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = string(c)
	}
	return out
}

// schemaOf infers the input schema of an input struct.
func schemaOf(v any) *jsonschema.Schema {
	s, err := jsonschema.ForType(reflect.TypeOf(v), &jsonschema.ForOptions{})
	if err != nil {
		panic(fmt.Sprintf("filetools: schema of %T: %v", v, err))
	}
	return s
}

// funcHandler adapts a function returning the result data.
type funcHandler func(context.Context, registry.Call) (any, error)

func handler(f func(context.Context, registry.Call) (any, error)) registry.Handler {
	return funcHandler(f)
}

func (f funcHandler) Call(ctx context.Context, call registry.Call) (*registry.Result, error) {
	start := time.Now()
	data, err := f(ctx, call)
	if err != nil {
		return nil, err
	}
	if r, ok := data.(*registry.Result); ok {
		return r, nil // a call through another tool (edit_file)
	}
	b, err := json.Marshal(data)
	if err != nil {
		return nil, failure.Wrap(failure.Internal, err, "encode result")
	}
	d := time.Since(start)
	return &registry.Result{OK: true, Data: b, Duration: d, DurationMS: float64(d.Microseconds()) / 1000,
		Diagnostics: []diagnostic.Diagnostic{}}, nil
}

// decode turns validated input into the input struct.
func decode(input map[string]any, v any) error {
	b, err := json.Marshal(input)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		return failure.Wrap(failure.InvalidInput, err, "input")
	}
	return nil
}

// relPath checks a path input: relative, inside the workspace by its
// text, and returns it clean with "/" separators. Symlinks are the
// workspace's to judge (Resolve*).
func relPath(key, p string) (string, error) {
	switch {
	case p == "":
		return "", &failure.Error{Code: failure.InvalidInput, Field: key, Message: "empty path"}
	case strings.IndexByte(p, 0) >= 0:
		return "", &failure.Error{Code: failure.InvalidInput, Field: key, Message: fmt.Sprintf("path %q contains a NUL byte", p)}
	case filepath.IsAbs(p) || path.IsAbs(filepath.ToSlash(p)):
		return "", &failure.Error{Code: failure.InvalidInput, Field: key,
			Message: fmt.Sprintf("path %q is absolute: give it relative to the workspace root", p)}
	}
	clean := path.Clean(filepath.ToSlash(p))
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", &failure.Error{Code: failure.InvalidInput, Field: key,
			Message: fmt.Sprintf("path %q leaves the workspace", p)}
	}
	return clean, nil
}

// private reports whether rel is in a directory that listings skip and
// writes never reach a language server for: the repository's own and
// langhost's. Whether a write is allowed is the workspace's to decide
// (workspace.Root.ResolveWrite and ResolveCreate), at any depth.
func private(rel string) bool {
	first, _, _ := strings.Cut(rel, "/")
	return first == ".git" || first == ".langhost"
}
