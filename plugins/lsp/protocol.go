package lsp

import (
	"encoding/json"
	"strings"
)

// This file holds the few LSP 3.17 types the semantic operations use,
// written by hand. Fields the operations never read are left out; values a
// request must hand back unchanged (hierarchy items, code action data) keep
// their opaque parts as json.RawMessage.

// DocumentURI is a file:// URI.
type DocumentURI string

// Position is a zero-based line and UTF-16 code unit offset.
type Position struct {
	Line      uint32 `json:"line"`
	Character uint32 `json:"character"`
}

// Range is a half-open range [Start, End).
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Contains reports whether p lies within r (End inclusive, as editors do for
// a cursor right after an identifier).
func (r Range) Contains(p Position) bool {
	return !p.Before(r.Start) && !r.End.Before(p)
}

// ContainsRange reports whether inner lies within r.
func (r Range) ContainsRange(inner Range) bool {
	return r.Contains(inner.Start) && r.Contains(inner.End)
}

// Before reports whether p comes strictly before q.
func (p Position) Before(q Position) bool {
	return p.Line < q.Line || (p.Line == q.Line && p.Character < q.Character)
}

// Location is a range in a document.
type Location struct {
	URI   DocumentURI `json:"uri"`
	Range Range       `json:"range"`
}

// LocationLink is the richer form of a definition result.
type LocationLink struct {
	OriginSelectionRange *Range      `json:"originSelectionRange,omitempty"`
	TargetURI            DocumentURI `json:"targetUri"`
	TargetRange          Range       `json:"targetRange"`
	TargetSelectionRange Range       `json:"targetSelectionRange"`
}

// DecodeLocations decodes the result of definition-like requests:
// Location, []Location, []LocationLink or null.
func DecodeLocations(raw json.RawMessage) ([]Location, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return nil, nil
	}
	if strings.HasPrefix(s, "{") {
		var l Location
		if err := json.Unmarshal(raw, &l); err != nil {
			return nil, err
		}
		return []Location{l}, nil
	}
	var items []struct {
		Location
		LocationLink
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, err
	}
	locs := make([]Location, 0, len(items))
	for _, it := range items {
		if it.TargetURI != "" {
			locs = append(locs, Location{URI: it.TargetURI, Range: it.TargetSelectionRange})
		} else {
			locs = append(locs, it.Location)
		}
	}
	return locs, nil
}

// TextDocumentIdentifier names a document.
type TextDocumentIdentifier struct {
	URI DocumentURI `json:"uri"`
}

// VersionedTextDocumentIdentifier names a document at a version; Version is
// null in workspace edits for documents the server did not see opened.
type VersionedTextDocumentIdentifier struct {
	URI     DocumentURI `json:"uri"`
	Version *int32      `json:"version"`
}

// TextDocumentItem is the payload of textDocument/didOpen.
type TextDocumentItem struct {
	URI        DocumentURI `json:"uri"`
	LanguageID string      `json:"languageId"`
	Version    int32       `json:"version"`
	Text       string      `json:"text"`
}

// TextDocumentPositionParams addresses a position in a document.
type TextDocumentPositionParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
	Position     Position               `json:"position"`
}

// SymbolKind is the LSP symbol kind.
type SymbolKind int

var symbolKindNames = [...]string{
	"", "file", "module", "namespace", "package", "class", "method", "property",
	"field", "constructor", "enum", "interface", "function", "variable",
	"constant", "string", "number", "boolean", "array", "object", "key",
	"null", "enumMember", "struct", "event", "operator", "typeParameter",
}

// String returns the lower camel case LSP name of the kind, e.g. "enumMember".
func (k SymbolKind) String() string {
	if k > 0 && int(k) < len(symbolKindNames) {
		return symbolKindNames[k]
	}
	return "unknown"
}

// ParseSymbolKind returns the kind named s (case-insensitive), or 0.
func ParseSymbolKind(s string) SymbolKind {
	for i, n := range symbolKindNames {
		if i > 0 && strings.EqualFold(n, s) {
			return SymbolKind(i)
		}
	}
	return 0
}

// SymbolKindNames lists every kind name, for schemas.
func SymbolKindNames() []string { return append([]string(nil), symbolKindNames[1:]...) }

// IsType reports whether k names a type-like symbol.
func (k SymbolKind) IsType() bool {
	switch k {
	case 5, 10, 11, 23, 26: // class, enum, interface, struct, typeParameter
		return true
	}
	return false
}

// DocumentSymbol is one node of a hierarchical textDocument/documentSymbol result.
type DocumentSymbol struct {
	Name           string           `json:"name"`
	Detail         string           `json:"detail,omitempty"`
	Kind           SymbolKind       `json:"kind"`
	Range          Range            `json:"range"`
	SelectionRange Range            `json:"selectionRange"`
	Children       []DocumentSymbol `json:"children,omitempty"`
}

// SymbolInformation is the flat symbol form of documentSymbol and
// workspace/symbol. A WorkspaceSymbol may omit the location's range.
type SymbolInformation struct {
	Name          string     `json:"name"`
	Kind          SymbolKind `json:"kind"`
	ContainerName string     `json:"containerName,omitempty"`
	Location      struct {
		URI   DocumentURI `json:"uri"`
		Range *Range      `json:"range,omitempty"`
	} `json:"location"`
}

// DecodeDocumentSymbols decodes a documentSymbol result, converting the flat
// SymbolInformation form into a tree by range containment.
func DecodeDocumentSymbols(raw json.RawMessage) ([]DocumentSymbol, error) {
	var probe []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil || len(probe) == 0 {
		return nil, err
	}
	if _, flat := probe[0]["location"]; !flat {
		var syms []DocumentSymbol
		err := json.Unmarshal(raw, &syms)
		return syms, err
	}
	var flat []SymbolInformation
	if err := json.Unmarshal(raw, &flat); err != nil {
		return nil, err
	}
	var roots []DocumentSymbol
	for _, si := range flat {
		var r Range
		if si.Location.Range != nil {
			r = *si.Location.Range
		}
		roots = insertSymbol(roots, DocumentSymbol{Name: si.Name, Kind: si.Kind, Range: r, SelectionRange: r})
	}
	return roots, nil
}

func insertSymbol(list []DocumentSymbol, s DocumentSymbol) []DocumentSymbol {
	for i := range list {
		if list[i].Range != s.Range && list[i].Range.ContainsRange(s.Range) {
			list[i].Children = insertSymbol(list[i].Children, s)
			return list
		}
	}
	return append(list, s)
}

// DiagnosticSeverity is 1 error, 2 warning, 3 information, 4 hint.
type DiagnosticSeverity int

func (s DiagnosticSeverity) String() string {
	switch s {
	case 1:
		return "error"
	case 2:
		return "warning"
	case 3:
		return "information"
	case 4:
		return "hint"
	}
	return "unknown"
}

// Diagnostic is a compiler or linter message.
type Diagnostic struct {
	Range    Range              `json:"range"`
	Severity DiagnosticSeverity `json:"severity,omitempty"`
	Code     json.RawMessage    `json:"code,omitempty"` // integer or string
	Source   string             `json:"source,omitempty"`
	Message  string             `json:"message"`
	Data     json.RawMessage    `json:"data,omitempty"`
}

// CodeString renders the diagnostic code, which may be a number or string.
func (d Diagnostic) CodeString() string {
	var s string
	if json.Unmarshal(d.Code, &s) == nil {
		return s
	}
	return strings.TrimSpace(string(d.Code))
}

// PublishDiagnosticsParams is the payload of textDocument/publishDiagnostics.
type PublishDiagnosticsParams struct {
	URI         DocumentURI  `json:"uri"`
	Version     *int32       `json:"version,omitempty"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// DocumentDiagnosticReport is the result of textDocument/diagnostic.
type DocumentDiagnosticReport struct {
	Kind  string       `json:"kind"` // "full" or "unchanged"
	Items []Diagnostic `json:"items"`
}

// WorkspaceDiagnosticReport is the result of workspace/diagnostic.
type WorkspaceDiagnosticReport struct {
	Items []struct {
		URI     DocumentURI  `json:"uri"`
		Kind    string       `json:"kind"`
		Version *int32       `json:"version"`
		Items   []Diagnostic `json:"items"`
	} `json:"items"`
}

// TextEdit replaces a range with new text.
type TextEdit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

// TextDocumentEdit is a set of edits to one document version.
type TextDocumentEdit struct {
	TextDocument VersionedTextDocumentIdentifier `json:"textDocument"`
	Edits        []TextEdit                      `json:"edits"`
}

// WorkspaceEdit is a set of changes across documents. DocumentChanges items
// are TextDocumentEdits or resource operations (create/rename/delete, told
// apart by their "kind").
type WorkspaceEdit struct {
	Changes         map[DocumentURI][]TextEdit `json:"changes,omitempty"`
	DocumentChanges []json.RawMessage          `json:"documentChanges,omitempty"`
}

// Command is a server command reference.
type Command struct {
	Title     string            `json:"title"`
	Command   string            `json:"command"`
	Arguments []json.RawMessage `json:"arguments,omitempty"`
}

// CodeAction is a code action; Edit may be missing until resolved.
type CodeAction struct {
	Title       string       `json:"title"`
	Kind        string       `json:"kind,omitempty"`
	Diagnostics []Diagnostic `json:"diagnostics,omitempty"`
	IsPreferred bool         `json:"isPreferred,omitempty"`
	Disabled    *struct {
		Reason string `json:"reason"`
	} `json:"disabled,omitempty"`
	Edit    *WorkspaceEdit  `json:"edit,omitempty"`
	Command *Command        `json:"command,omitempty"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// DecodeCodeActions decodes a codeAction result whose items are CodeActions
// or bare Commands; a bare Command becomes a CodeAction carrying it.
func DecodeCodeActions(raw json.RawMessage) ([]CodeAction, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, err
	}
	actions := make([]CodeAction, 0, len(items))
	for _, it := range items {
		var probe struct {
			Command json.RawMessage `json:"command"`
		}
		if err := json.Unmarshal(it, &probe); err != nil {
			return nil, err
		}
		if len(probe.Command) > 0 && probe.Command[0] == '"' {
			var c Command
			if err := json.Unmarshal(it, &c); err != nil {
				return nil, err
			}
			actions = append(actions, CodeAction{Title: c.Title, Command: &c})
			continue
		}
		var a CodeAction
		if err := json.Unmarshal(it, &a); err != nil {
			return nil, err
		}
		actions = append(actions, a)
	}
	return actions, nil
}

// HierarchyItem is a TypeHierarchyItem or CallHierarchyItem (same shape).
type HierarchyItem struct {
	Name           string          `json:"name"`
	Kind           SymbolKind      `json:"kind"`
	Detail         string          `json:"detail,omitempty"`
	URI            DocumentURI     `json:"uri"`
	Range          Range           `json:"range"`
	SelectionRange Range           `json:"selectionRange"`
	Data           json.RawMessage `json:"data,omitempty"`
}

// CallHierarchyIncomingCall is one caller of a call hierarchy item.
type CallHierarchyIncomingCall struct {
	From       HierarchyItem `json:"from"`
	FromRanges []Range       `json:"fromRanges"`
}

// Hover is a textDocument/hover result.
type Hover struct {
	Contents json.RawMessage `json:"contents"`
	Range    *Range          `json:"range,omitempty"`
}

// Text flattens the hover contents (MarkupContent, MarkedString or a list
// of MarkedStrings) to plain text.
func (h Hover) Text() string {
	return markedText(h.Contents)
}

func markedText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var obj struct {
		Kind     string `json:"kind"`
		Value    string `json:"value"`
		Language string `json:"language"`
	}
	if json.Unmarshal(raw, &obj) == nil && (obj.Value != "" || obj.Kind != "") {
		if obj.Language != "" {
			return "```" + obj.Language + "\n" + obj.Value + "\n```"
		}
		return obj.Value
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		parts := make([]string, 0, len(list))
		for _, it := range list {
			parts = append(parts, markedText(it))
		}
		return strings.Join(parts, "\n\n")
	}
	return ""
}

// FormattingOptions are the options of textDocument/formatting.
type FormattingOptions struct {
	TabSize      uint32 `json:"tabSize"`
	InsertSpaces bool   `json:"insertSpaces"`
}

// Registration is one dynamic capability registration from the server.
type Registration struct {
	ID              string          `json:"id"`
	Method          string          `json:"method"`
	RegisterOptions json.RawMessage `json:"registerOptions,omitempty"`
}

// FileChangeType is the kind of a watched file event.
type FileChangeType int

// File change types.
const (
	FileCreated FileChangeType = 1
	FileChanged FileChangeType = 2
	FileDeleted FileChangeType = 3
)

// FileEvent is one workspace/didChangeWatchedFiles change.
type FileEvent struct {
	URI  DocumentURI    `json:"uri"`
	Type FileChangeType `json:"type"`
}
