// Package roslynagent is the RoslynCodingAgent, the agent plugin of C#: it
// serves the semantic operations of plugins/semantic through a Roslyn-based
// language server (roslyn-language-server, or csharp-ls), and next to them
// the project-structure operations of plugins/dotnet (list_projects,
// project_info, ...), which parse .sln/.csproj files in the plugin process
// and need no server: they answer even where .NET is not installed.
package roslynagent

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/dotnet"
	"github.com/langhost/langhost/plugins/pluginapi"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/langhost/langhost/plugins/semantic"
)

// Name and Version identify the agent in Describe.
const (
	Name    = "roslyn"
	Version = semantic.Version
)

// Agent implements pluginapi.Agent. The language server starts with the
// first semantic operation, not on Open, so that project operations never
// wait for a server to load a solution, nor fail because none is
// installed. It is safe for concurrent use.
type Agent struct {
	engine *semantic.Engine

	mu   sync.Mutex
	open *pluginapi.OpenRequest // nil until Open
	root string                 // real path of the workspace root

	// engineMu is held while the engine opens the workspace, which takes
	// as long as the server needs to load it; project operations do not
	// wait for it.
	engineMu   sync.Mutex
	engineOpen bool // the engine has opened open
}

var _ pluginapi.Agent = (*Agent)(nil)

// New returns an agent logging to logger (nil discards logs).
func New(logger hclog.Logger) *Agent {
	return &Agent{engine: semantic.New(logger)}
}

// Describe implements pluginapi.Agent: the semantic operations, then the
// project operations.
func (a *Agent) Describe(context.Context) (*pluginapi.Description, error) {
	ops := append(semantic.Operations(), dotnet.Operations()...)
	return &pluginapi.Description{Name: Name, Version: Version, Operations: ops}, nil
}

// Open implements pluginapi.Agent: it checks the configuration and the
// workspace root; the server starts with the first semantic operation.
func (a *Agent) Open(ctx context.Context, req pluginapi.OpenRequest, _ pluginapi.ProgressFunc) error {
	if _, err := semantic.ParseConfig(req.Config); err != nil {
		return err
	}
	ws, err := workspace.New(req.Root)
	if err != nil {
		return &failure.Error{Code: failure.CodeOf(err), Field: "root", Message: "opening the workspace", Err: err}
	}
	a.engineMu.Lock()
	defer a.engineMu.Unlock()
	if a.engineOpen {
		// A new configuration: the old server must not keep running.
		if err := a.engine.Shutdown(ctx); err != nil {
			return err
		}
		a.engineOpen = false
	}
	a.mu.Lock()
	a.open, a.root = &req, ws.Dir()
	a.mu.Unlock()
	return nil
}

// Invoke implements pluginapi.Agent.
func (a *Agent) Invoke(ctx context.Context, req pluginapi.InvokeRequest, progress pluginapi.ProgressFunc) (json.RawMessage, error) {
	a.mu.Lock()
	root := a.root
	a.mu.Unlock()
	if root == "" {
		return nil, failure.New(failure.Precondition, "no workspace is open: call Open first")
	}
	if dotnet.IsOperation(req.Operation) {
		return dotnet.Invoke(ctx, root, req.Operation, req.Input)
	}
	if err := a.openEngine(ctx, progress); err != nil {
		return nil, err
	}
	return a.engine.Invoke(ctx, req, progress)
}

// openEngine opens the workspace in the engine, which starts the language
// server, unless it is open. A failed open (no server installed) is tried
// again by the next call.
func (a *Agent) openEngine(ctx context.Context, progress pluginapi.ProgressFunc) error {
	a.engineMu.Lock()
	defer a.engineMu.Unlock()
	if a.engineOpen {
		return nil
	}
	a.mu.Lock()
	req := a.open
	a.mu.Unlock()
	if req == nil {
		return failure.New(failure.Precondition, "no workspace is open: call Open first")
	}
	if err := a.engine.Open(ctx, *req, progress); err != nil {
		return err
	}
	a.engineOpen = true
	return nil
}

// Status implements pluginapi.Agent.
func (a *Agent) Status(ctx context.Context) (*pluginapi.Status, error) {
	a.mu.Lock()
	opened := a.open != nil
	a.mu.Unlock()
	if !opened {
		return &pluginapi.Status{Message: "no workspace open"}, nil
	}
	if !a.engineStarted() {
		return &pluginapi.Status{Ready: true, Message: "workspace open; the language server starts with the first semantic operation"}, nil
	}
	return a.engine.Status(ctx)
}

// engineStarted reports whether the engine has opened the workspace,
// without waiting for an open in progress.
func (a *Agent) engineStarted() bool {
	if !a.engineMu.TryLock() {
		return true // opening: the engine reports the progress
	}
	defer a.engineMu.Unlock()
	return a.engineOpen
}

// Shutdown implements pluginapi.Agent. It may be called more than once.
// Like the engine's, it waits for a workspace being opened.
func (a *Agent) Shutdown(ctx context.Context) error {
	a.engineMu.Lock()
	defer a.engineMu.Unlock()
	a.engineOpen = false
	a.mu.Lock()
	a.open, a.root = nil, ""
	a.mu.Unlock()
	return a.engine.Shutdown(ctx)
}
