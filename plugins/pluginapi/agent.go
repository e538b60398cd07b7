// Package pluginapi is the contract between the langhost host and a semantic
// agent plugin (such as the RoslynCodingAgent), and the one package a plugin
// needs: implement Agent and hand it to Serve. The same Agent interface is
// implemented in-process by the semantic engine, served over gRPC by
// hashicorp/go-plugin in the plugin process, and implemented again by the
// gRPC client in the host, so the host never cares which side of the process
// boundary an agent lives on.
//
// The host knows no operation by name: it registers one tool per operation
// the agent's Describe answer lists (see Description.Validate for what it
// accepts) and forwards each call to Invoke.
package pluginapi

import (
	"context"
	"encoding/json"
)

// Agent is a semantic agent: it opens one workspace and answers operations.
type Agent interface {
	// Describe reports the agent's identity and the operations it serves.
	Describe(ctx context.Context) (*Description, error)
	// Open loads a workspace. It may take a long time (project loading);
	// progress is reported through the callback, which may be nil.
	Open(ctx context.Context, req OpenRequest, progress ProgressFunc) error
	// Invoke runs one operation on the open workspace.
	Invoke(ctx context.Context, req InvokeRequest, progress ProgressFunc) (json.RawMessage, error)
	// Status reports whether the workspace is loaded and the server healthy.
	Status(ctx context.Context) (*Status, error)
	// Shutdown stops the language server and releases resources.
	Shutdown(ctx context.Context) error
}

// ProgressFunc receives progress reports; it must not block for long.
type ProgressFunc func(Progress)

// Progress is one progress report.
type Progress struct {
	Message string  `json:"message"`
	Percent float64 `json:"percent,omitempty"` // 0..100, 0 when unknown
}

// Description identifies an agent and lists its operations.
type Description struct {
	Name       string      `json:"name"`
	Version    string      `json:"version"`
	Operations []Operation `json:"operations"`
}

// Operation describes one operation an agent serves.
type Operation struct {
	Name         string          `json:"name"` // e.g. "find_references"
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`  // JSON Schema
	OutputSchema json.RawMessage `json:"outputSchema"` // JSON Schema
	// SideEffects is "none" (read-only) or "workspace" (may write files when
	// applied); workspace operations need confirmation to apply.
	SideEffects  string   `json:"sideEffects"`
	FailureCodes []string `json:"failureCodes,omitempty"`
	// WorkspaceCode names, in one clause, the code the workspace controls
	// that the operation runs by itself (its tests, build scripts, MSBuild
	// targets); empty when it runs none. The host runs such an operation
	// in an untrusted workspace only with the user's consent.
	WorkspaceCode string `json:"workspaceCode,omitempty"`
	// NoServer marks an operation that runs without the language server
	// of the spec (it parses project files itself). Any other operation
	// may start the server, and so runs what the server runs
	// (spec.Server.WorkspaceCode).
	NoServer bool `json:"noServer,omitempty"`
}

// OpenRequest names the workspace and the language server configuration.
type OpenRequest struct {
	Root     string `json:"root"`     // absolute workspace root
	Language string `json:"language"` // language id, e.g. "csharp"
	// Config is the language spec's `semantic:` block as JSON.
	Config json.RawMessage `json:"config"`
}

// InvokeRequest asks for one operation.
type InvokeRequest struct {
	Operation string          `json:"operation"`
	Input     json.RawMessage `json:"input"`
	// Confirmed is true when the caller allowed side effects (apply a rename).
	Confirmed bool `json:"confirmed"`
}

// Status is an agent's health.
type Status struct {
	Ready     bool   `json:"ready"`
	Server    string `json:"server,omitempty"` // language server name/version
	ServerPID int    `json:"serverPid,omitempty"`
	Message   string `json:"message,omitempty"`
}
