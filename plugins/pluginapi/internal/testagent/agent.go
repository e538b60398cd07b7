// Package testagent is a small real Agent for testing the plugin transport
// and the host's plugin manager. Its operations exercise what a semantic
// agent does at the process boundary: results, failures, progress,
// cancellation, a crash and a child process standing in for a language
// server.
package testagent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/langhost/langhost/plugins/pluginapi"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// ChildArg is the argument that makes the test plugin binary act as the
// stand-in language server: it blocks until killed.
const ChildArg = "child"

// DescribeEnv names a file whose content the agent returns from Describe,
// as JSON, instead of its own description: tests give the host hostile
// descriptions through it.
const DescribeEnv = "TESTAGENT_DESCRIBE"

// OpenConfig is the OpenRequest.Config the agent understands.
type OpenConfig struct {
	// Child starts a child process (a stand-in language server) whose PID
	// Status reports and Shutdown stops.
	Child bool `json:"child"`
}

// SleepInput is the input of the "sleep" operation.
type SleepInput struct {
	Millis int `json:"ms"`
	// Marker, when set, is a file the agent writes "canceled" into when the
	// call's context is cancelled, so a test can see cancellation arrive.
	Marker string `json:"marker,omitempty"`
}

// ProgressInput is the input of the "progress" operation.
type ProgressInput struct {
	Count int `json:"count"`
}

// FailInput is the input of the "fail" operation.
type FailInput struct {
	Symbol string `json:"symbol"`
	// Wrap adds context around the failure, as agents often do.
	Wrap bool `json:"wrap,omitempty"`
}

// OpenedOutput is the output of the "opened" operation.
type OpenedOutput struct {
	Request pluginapi.OpenRequest `json:"request"`
	Opens   int                   `json:"opens"`
	PID     int                   `json:"pid"`
}

// Agent implements pluginapi.Agent.
type Agent struct {
	logger hclog.Logger

	mu     sync.Mutex
	open   *pluginapi.OpenRequest
	opens  int
	child  *exec.Cmd
	closed bool
}

// New returns an agent that logs through logger.
func New(logger hclog.Logger) *Agent {
	return &Agent{logger: logger}
}

var operations = []pluginapi.Operation{
	{Name: "echo", Description: "Returns its input.", SideEffects: "none",
		InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{"type":"object"}`)},
	{Name: "sleep", Description: "Waits ms milliseconds or until cancelled.", SideEffects: "none",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer"},"marker":{"type":"string"}}}`)},
	{Name: "fail", Description: "Fails with not_found and candidates.", SideEffects: "none",
		FailureCodes: []string{string(failure.NotFound)}},
	{Name: "crash", Description: "Exits the plugin process mid-call.", SideEffects: "none"},
	{Name: "progress", Description: "Reports count progress messages.", SideEffects: "none"},
	{Name: "opened", Description: "Returns the open request and how often Open ran.", SideEffects: "none"},
	{Name: "broken_output", Description: "Returns bytes that are not JSON.", SideEffects: "none"},
}

// Describe implements pluginapi.Agent.
func (a *Agent) Describe(ctx context.Context) (*pluginapi.Description, error) {
	if file := os.Getenv(DescribeEnv); file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, failure.Wrap(failure.Internal, err, "read the description")
		}
		var d pluginapi.Description
		if err := json.Unmarshal(data, &d); err != nil {
			return nil, failure.Wrap(failure.Internal, err, "decode the description")
		}
		return &d, nil
	}
	return &pluginapi.Description{Name: "testagent", Version: "1.0.0", Operations: operations}, nil
}

// Open implements pluginapi.Agent.
func (a *Agent) Open(ctx context.Context, req pluginapi.OpenRequest, progress pluginapi.ProgressFunc) error {
	var cfg OpenConfig
	if len(req.Config) > 0 {
		if err := json.Unmarshal(req.Config, &cfg); err != nil {
			return failure.Wrap(failure.InvalidInput, err, "semantic config of %s", req.Language)
		}
	}
	report(progress, "loading workspace", 50)
	a.mu.Lock()
	defer a.mu.Unlock()
	if cfg.Child && a.child == nil {
		exe, err := os.Executable()
		if err != nil {
			return failure.Wrap(failure.Internal, err, "locate test plugin executable")
		}
		child := exec.Command(exe, ChildArg)
		if err := child.Start(); err != nil {
			return failure.Wrap(failure.Internal, err, "start child process")
		}
		a.child = child
	}
	a.open = &req
	a.opens++
	a.logger.Info("workspace opened", "root", req.Root, "language", req.Language)
	report(progress, "workspace loaded", 100)
	return nil
}

// Invoke implements pluginapi.Agent.
func (a *Agent) Invoke(ctx context.Context, req pluginapi.InvokeRequest, progress pluginapi.ProgressFunc) (json.RawMessage, error) {
	a.logger.Debug("invoke", "operation", req.Operation)
	switch req.Operation {
	case "echo":
		return req.Input, nil
	case "sleep":
		var in SleepInput
		if err := decode(req.Input, &in); err != nil {
			return nil, err
		}
		select {
		case <-time.After(time.Duration(in.Millis) * time.Millisecond):
			return json.RawMessage(`{"slept":true}`), nil
		case <-ctx.Done():
			if in.Marker != "" {
				if err := os.WriteFile(in.Marker, []byte("canceled"), 0o644); err != nil {
					a.logger.Error("write cancel marker", "error", err)
				}
			}
			return nil, ctx.Err()
		}
	case "fail":
		var in FailInput
		if err := decode(req.Input, &in); err != nil {
			return nil, err
		}
		err := &failure.Error{
			Code:    failure.NotFound,
			Message: fmt.Sprintf("no symbol named %q", in.Symbol),
			Field:   "symbol",
			Details: map[string]any{"candidates": []string{in.Symbol + "s", "_" + in.Symbol}},
		}
		if in.Wrap {
			return nil, fmt.Errorf("resolve symbol: %w", err)
		}
		return nil, err
	case "crash":
		report(progress, "about to crash", 0)
		// Give the progress message time to leave the process, so the host
		// knows the call was delivered.
		time.Sleep(50 * time.Millisecond)
		os.Exit(3)
		return nil, nil
	case "progress":
		var in ProgressInput
		if err := decode(req.Input, &in); err != nil {
			return nil, err
		}
		for i := 1; i <= in.Count; i++ {
			report(progress, fmt.Sprintf("step %d", i), float64(100*i/in.Count))
		}
		return json.Marshal(map[string]int{"count": in.Count})
	case "broken_output":
		return json.RawMessage(`{"half":`), nil
	case "opened":
		a.mu.Lock()
		defer a.mu.Unlock()
		if a.open == nil {
			return nil, failure.New(failure.Precondition, "no workspace is open")
		}
		return json.Marshal(OpenedOutput{Request: *a.open, Opens: a.opens, PID: os.Getpid()})
	}
	return nil, &failure.Error{Code: failure.NotFound, Message: fmt.Sprintf("unknown operation %q", req.Operation), Field: "operation"}
}

// Status implements pluginapi.Agent.
func (a *Agent) Status(ctx context.Context) (*pluginapi.Status, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	st := &pluginapi.Status{Ready: a.open != nil && !a.closed, Server: "testagent-child"}
	if a.child != nil {
		st.ServerPID = a.child.Process.Pid
	}
	return st, nil
}

// Shutdown implements pluginapi.Agent. It may be called more than once.
func (a *Agent) Shutdown(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closed = true
	if a.child == nil {
		return nil
	}
	child := a.child
	a.child = nil
	if err := child.Process.Kill(); err != nil {
		return failure.Wrap(failure.Internal, err, "stop child process %d", child.Process.Pid)
	}
	_ = child.Wait() // reap; the error is the kill signal
	a.logger.Info("child process stopped", "pid", child.Process.Pid)
	return nil
}

func decode(input json.RawMessage, v any) error {
	if err := json.Unmarshal(input, v); err != nil {
		return failure.Wrap(failure.InvalidInput, err, "decode input")
	}
	return nil
}

func report(progress pluginapi.ProgressFunc, msg string, percent float64) {
	if progress != nil {
		progress(pluginapi.Progress{Message: msg, Percent: percent})
	}
}
