// Command twoops is a third-party agent plugin as a langhost user would
// write one: it imports nothing of langhost but the contract
// (plugins/pluginapi) and serves two operations of its own, echo and
// count_lines. When TWOOPS_MARKER names a file, each process appends a
// line to it as it starts, so that a test can count the processes.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/langhost/langhost/plugins/pluginapi"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

func main() {
	if marker := os.Getenv("TWOOPS_MARKER"); marker != "" {
		f, err := os.OpenFile(marker, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			panic(err)
		}
		fmt.Fprintf(f, "started %d\n", os.Getpid())
		f.Close()
	}
	logger := pluginapi.NewLogger("twoops")
	pluginapi.Serve(&agent{}, logger)
}

type agent struct {
	mu   sync.Mutex
	root *os.Root // the open workspace; nil before Open
}

var operations = []pluginapi.Operation{
	{
		Name:         "echo",
		Description:  "Return the message.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"],"additionalProperties":false}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}}}`),
		SideEffects:  pluginapi.SideEffectsNone,
	},
	{
		Name:         "count_lines",
		Description:  "Count the lines of a workspace file.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"file relative to the workspace root"}},"required":["path"],"additionalProperties":false}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"lines":{"type":"integer"}}}`),
		SideEffects:  pluginapi.SideEffectsNone,
		FailureCodes: []string{string(failure.InvalidInput), string(failure.NotFound)},
	},
}

func (a *agent) Describe(context.Context) (*pluginapi.Description, error) {
	return &pluginapi.Description{Name: "twoops", Version: "1.0.0", Operations: operations}, nil
}

func (a *agent) Open(_ context.Context, req pluginapi.OpenRequest, _ pluginapi.ProgressFunc) error {
	// os.Root keeps every file this agent opens inside the workspace,
	// symlinks included.
	root, err := os.OpenRoot(req.Root)
	if err != nil {
		return failure.Wrap(failure.InvalidInput, err, "open workspace %s", req.Root)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.root != nil {
		a.root.Close()
	}
	a.root = root
	return nil
}

func (a *agent) Invoke(_ context.Context, req pluginapi.InvokeRequest, _ pluginapi.ProgressFunc) (json.RawMessage, error) {
	switch req.Operation {
	case "echo":
		var in struct{ Message string }
		if err := json.Unmarshal(req.Input, &in); err != nil {
			return nil, failure.Wrap(failure.InvalidInput, err, "echo input")
		}
		return json.Marshal(map[string]string{"message": in.Message})
	case "count_lines":
		var in struct{ Path string }
		if err := json.Unmarshal(req.Input, &in); err != nil {
			return nil, failure.Wrap(failure.InvalidInput, err, "count_lines input")
		}
		a.mu.Lock()
		root := a.root
		a.mu.Unlock()
		if root == nil {
			return nil, failure.New(failure.Precondition, "no workspace is open")
		}
		f, err := root.Open(in.Path)
		if err != nil {
			return nil, &failure.Error{Code: failure.NotFound, Field: "path", Message: fmt.Sprintf("cannot open %q in the workspace", in.Path), Err: err}
		}
		defer f.Close()
		data, err := io.ReadAll(io.LimitReader(f, 64<<20))
		if err != nil {
			return nil, failure.Wrap(failure.InvalidInput, err, "read %s", in.Path)
		}
		return json.Marshal(map[string]any{"path": in.Path, "lines": bytes.Count(data, []byte("\n"))})
	}
	return nil, &failure.Error{Code: failure.NotFound, Field: "operation", Message: fmt.Sprintf("unknown operation %q", req.Operation)}
}

func (a *agent) Status(context.Context) (*pluginapi.Status, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return &pluginapi.Status{Ready: a.root != nil}, nil
}

func (a *agent) Shutdown(context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.root != nil {
		a.root.Close()
		a.root = nil
	}
	return nil
}
