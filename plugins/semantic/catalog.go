package semantic

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/langhost/langhost/plugins/pluginapi"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/langhost/langhost/plugins/pluginapi/inputname"
)

// operation is one entry of the catalogue.
type operation struct {
	name        string
	description string
	sideEffects string
	failures    []failure.Code
	in, out     reflect.Type
	run         func(ctx context.Context, c *call, input json.RawMessage) (any, error)
	// adjust refines the generated input schema (enums, required keys).
	adjust func(s *jsonschema.Schema)
}

// call is the context of one Invoke.
type call struct {
	e         *Engine
	s         *session
	confirmed bool
}

// op builds an operation whose input decodes into I.
func op[I, O any](name, description, sideEffects string, failures []failure.Code, adjust func(*jsonschema.Schema), run func(context.Context, *call, *I) (*O, error)) operation {
	return operation{
		name: name, description: description, sideEffects: sideEffects, failures: failures,
		in: reflect.TypeFor[I](), out: reflect.TypeFor[O](), adjust: adjust,
		run: func(ctx context.Context, c *call, raw json.RawMessage) (any, error) {
			in := new(I)
			raw, err := canonicalInput[I](raw)
			if err != nil {
				return nil, err
			}
			dec := json.NewDecoder(strings.NewReader(string(raw)))
			dec.DisallowUnknownFields()
			if err := dec.Decode(in); err != nil {
				return nil, failure.Wrap(failure.InvalidInput, err, "decoding %s input", name)
			}
			if v, ok := any(in).(interface{ validate() error }); ok {
				if err := v.validate(); err != nil {
					return nil, err
				}
			}
			return run(ctx, c, in)
		},
	}
}

// canonicalInput renames the deprecated spellings of I's inputs in raw
// (newName for new_name) as the host does, for callers that still send
// them.
func canonicalInput[I any](raw json.RawMessage) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw, nil // the decoder reports it
	}
	keys := map[string]bool{}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[I]()) {
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
			keys[name] = true
		}
	}
	renamed, err := inputname.Canonicalize(m, func(k string) bool { return keys[k] })
	if err != nil || len(renamed) == 0 {
		return raw, err
	}
	return json.Marshal(m)
}

var (
	readFailures  = []failure.Code{failure.InvalidInput, failure.NotFound, failure.Ambiguous, failure.Unsupported, failure.Timeout, failure.Internal}
	writeFailures = append(append([]failure.Code(nil), readFailures...), failure.Precondition)
	// txnFailures are the classes of operations that write through a
	// transaction (txn.go).
	txnFailures = append(append([]failure.Code(nil), writeFailures...), failure.AnchorNotResolved, failure.DiagnosticRegression, failure.WorkspaceApplyFailed)
	// promiseFailures are those of structured edits, which check that
	// they did what they promised before writing (txn_postcondition.go).
	promiseFailures = append(append([]failure.Code(nil), txnFailures...), failure.Postcondition)
)

var catalogue = []operation{
	op("find_symbol", "Search the workspace for symbols whose name matches a query (workspace/symbol).", "none", readFailures, withEnums, findSymbol),
	op("file_symbols", "List the symbols declared in one file as a tree (textDocument/documentSymbol).", "none", readFailures, withEnums, fileSymbols),
	op("symbol_info", "Describe a symbol (by name, name path like Shape/Area, or position): stable symbol_id, kind, modifiers, signature, containing symbol, documentation, overloads, declaration and definition locations; the reference count with include_reference_count.", "none", readFailures, withEnums, symbolInfo),
	op("find_references", "Find every reference to a symbol (file, line, column); paginated. Detail standard adds each line's text and its containing member.", "none", readFailures, withEnums, findReferences),
	op("find_implementations", "Find the implementations of an interface or abstract member.", "none", readFailures, withEnums, findImplementations),
	op("type_hierarchy", "Show the supertypes and/or subtypes of a type.", "none", readFailures, withEnums, typeHierarchy),
	op("find_subclasses", "List the types deriving from a class or implementing an interface (typeHierarchy/subtypes), with the type each derives from directly; transitive follows subclasses of subclasses.", "none", readFailures, withEnums, findSubclasses),
	op("find_overrides", "Find the members that override or implement a virtual, abstract or interface member (textDocument/implementation, members only), each with its containing type.", "none", readFailures, withEnums, findOverrides),
	op("find_usages", "Find where a type is used (textDocument/references on the type, declaration excluded), each classified as instantiation, inheritance, type_test or reference, with counts by usage; paginated.", "none", readFailures, withEnums, findUsages),
	op("method_overloads", "List every overload of a method in its type (document symbols with the same name path), each with the selector that addresses it and its signature.", "none", readFailures, withEnums, methodOverloads),
	op("load_status", "Report the language server (name, version), what it loads (the workspace, solution or projects), the projects it has reported loading, work still in progress, and whether loading has completed.", "none", readFailures, withEnums, loadStatus),
	op("find_callers", "Find the functions that call a function, transitively up to a depth.", "none", readFailures, withEnums, findCallers),
	op("diagnostics", "Report compiler diagnostics for a file or the whole workspace.", "none", readFailures, withEnums, diagnostics),
	op("get_source", "Return the source text of a symbol's full declaration.", "none", readFailures, withEnums, getSource),
	op("type_members", "List the members declared in a type.", "none", readFailures, withEnums, typeMembers),
	op("containing_member", "Find the innermost declaration containing a position.", "none", readFailures, withEnums, containingMember),
	op("organize_imports", "Return a file's text with its imports organised; with apply, writes it through a transaction (checked by the server first).", "workspace", txnFailures, withEnums, organizeImports),
	op("format", "Return a file's text formatted by the language server; with apply, writes it through a transaction (checked by the server first).", "workspace", txnFailures, withEnums, format),
	op("rename", "Rename a symbol everywhere: a unified diff preview, or with apply, all files written atomically through a transaction, rejected if it adds errors (policy).", "workspace", txnFailures, withEnums, rename),
	op("code_actions", "List the code actions at a position or range; preview one as a unified diff, or apply it through a transaction, rejected if it adds errors (policy).", "workspace", txnFailures, withEnums, codeActions),
	op("edit_file", "Write a file through a transaction: the whole content, or exact-match replacements (old_text -> new_text); creates a missing file. The language server checks the new text in memory first; an edit that adds diagnostics its policy forbids is rejected (diagnostic_regression) and nothing is written. A write unless dry_run.", "workspace", txnFailures, withEnums, editFile),
	// Structured edits (ops_symbol_edit.go): addressed by name path, each a transaction.
	op("replace_symbol_body", "Replace the body of a function, method or class addressed by name path (Shape/Area, pkg.Type.Method, Area#2) through a transaction: the text between its braces, or the indented block after a signature that ends with a colon. Checked by the language server in memory first; rejected with diagnostic_regression (nothing written) when it adds errors, and with postcondition_failed when the server's symbols of the new text show another effect than promised (the body escaping its declaration). A write unless dry_run.", "workspace", promiseFailures, withEnums, replaceSymbolBody),
	op("insert_before_symbol", "Insert declarations before a symbol (and its doc comment), addressed by name path, at its indentation; through a transaction.", "workspace", promiseFailures, withEnums, insertBeforeSymbol),
	op("insert_after_symbol", "Insert declarations after a symbol addressed by name path, at its indentation; through a transaction.", "workspace", promiseFailures, withEnums, insertAfterSymbol),
	op("add_member", "Add a member to a type addressed by name path, after the last member of its kind (a field after the last field, a method after the last method); through a transaction.", "workspace", promiseFailures, withEnums, addMember),
	op("delete_symbol", "Delete a declaration addressed by name path, with its doc comment, attributes and decorators; through a transaction (rejected when code still uses it).", "workspace", promiseFailures, withEnums, deleteSymbol),
	op("update_imports", "Add or remove imports of a file (import paths, import statements or using directives, as the language writes them); through a transaction.", "workspace", promiseFailures, withEnums, updateImports),
	op("rename_symbol", "Rename a symbol addressed by name path everywhere, through a transaction (diff, diagnostics delta, undo record).", "workspace", promiseFailures, withEnums, renameSymbol),
	op("apply_code_action", "Apply one of the language server's code actions (by title, or by kind: quickfix, refactor..., source.organizeImports) at a symbol or a range of lines, through a transaction.", "workspace", txnFailures, withEnums, applyCodeAction),
	op("get_file_content", "Return lines of a file with their line numbers (at most 2000 lines, 2000 characters each) and the file's hash.", "none", readFailures, withEnums, getFileContent),
}

var opsByName = func() map[string]operation {
	m := make(map[string]operation, len(catalogue))
	for _, o := range catalogue {
		m[o.name] = o
	}
	return m
}()

// Operations lists the operations with their JSON schemas, as the engine
// describes them. It needs no server. The schemas are built once per
// process (by reflection, tens of milliseconds: the host describes the
// built-in agents on start) and shared: callers must not change them.
func Operations() []pluginapi.Operation {
	return slices.Clone(operations())
}

var operations = sync.OnceValue(func() []pluginapi.Operation {
	ops := make([]pluginapi.Operation, 0, len(catalogue))
	for _, o := range catalogue {
		codes := make([]string, len(o.failures))
		for i, c := range o.failures {
			codes[i] = string(c)
		}
		ops = append(ops, pluginapi.Operation{
			Name:         o.name,
			Description:  o.description,
			InputSchema:  schemaFor(o.in, o.adjust),
			OutputSchema: schemaFor(o.out, nil),
			SideEffects:  o.sideEffects,
			FailureCodes: codes,
		})
	}
	return ops
})

var schemaOptions = &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[actionRef]():         {Types: []string{"integer", "string"}, Description: "0-based index or exact title of the action"},
	reflect.TypeFor[json.RawMessage]():   {},
	reflect.TypeFor[symbolChildren]():    recursive("nested declarations, each shaped like its parent"),
	reflect.TypeFor[hierarchyChildren](): recursive("further types, each shaped like its parent"),
	reflect.TypeFor[callerChildren]():    recursive("callers of this caller, each shaped like its parent"),
}}

func recursive(description string) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "array", Description: description, Items: &jsonschema.Schema{Type: "object"}}
}

func schemaFor(t reflect.Type, adjust func(*jsonschema.Schema)) json.RawMessage {
	s, err := jsonschema.ForType(t, schemaOptions)
	if err != nil {
		// The types are fixed at compile time; a failure is a programming error.
		panic(fmt.Sprintf("schema for %v: %v", t, err))
	}
	if adjust != nil {
		adjust(s)
	}
	raw, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("encoding schema for %v: %v", t, err))
	}
	return raw
}

// enums names the allowed values of input keys shared by several operations.
var enums = map[string][]string{
	"detail":       {"compact", "standard", "full"},
	"direction":    {"supertypes", "subtypes", "both"},
	"min_severity": {"error", "warning", "info", "hint"},
	"policy":       policies,
	"packet":       {"raw", "compact", "guided"},
	"member_kind":  memberKinds,
	"kind":         nil, // filled from lsp.SymbolKindNames; code_actions overrides below
}

func withEnums(s *jsonschema.Schema) {
	keys := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		vals := enums[k]
		if k == "kind" && s.Properties[k].Description != "" && strings.Contains(s.Properties[k].Description, "code action") {
			continue
		}
		if k == "kind" {
			vals = symbolKindEnum
		}
		if len(vals) == 0 {
			continue
		}
		for _, v := range vals {
			s.Properties[k].Enum = append(s.Properties[k].Enum, v)
		}
	}
}
