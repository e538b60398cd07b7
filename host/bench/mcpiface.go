package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/toolname"
	"github.com/langhost/langhost/internal/procgroup"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// For a run with interface mcp, langhost's agent reaches its tools the
// way an MCP client does: a `langhost mcp` process serves them on stdio in
// the run's workspace, and every call goes through the official SDK
// client. The adapter below turns the server's tools back into registry
// tools, so the agent's executor runs unchanged.

// Bounds of the server process.
const (
	// mcpStopWait is how long a server gets to stop its plugins and exit
	// once its stdin closes, before its whole group is killed.
	mcpStopWait = 5 * time.Second
	// mcpStartTimeout bounds the server's start: the MCP handshake and
	// tools/list. A server that never answers must not hang the bench.
	mcpStartTimeout = 2 * time.Minute
	// maxMCPStderr is how much of the server's stderr is kept for errors.
	maxMCPStderr = 16 << 10
)

// mcpServer is a running `langhost mcp` and the client session to it.
type mcpServer struct {
	cmd     *exec.Cmd
	group   *procgroup.Group
	session *mcp.ClientSession
	stderr  *tailBuffer
	exited  chan struct{}
	waitErr error
	calls   atomic.Int64 // tool calls sent over MCP
	once    sync.Once
}

// serveOverMCP starts `exe mcp` in ws as an external client would, with
// the default settings, and returns a registry of those of tools the
// server offers, whose handlers call it; the others are left out of the
// run (and the timeline says which), as they would be for a client. The
// server must be closed, whatever happens after.
func serveOverMCP(ctx context.Context, exe, ws string, tools []*registry.Tool, tl *timeline) (*mcpServer, *registry.Registry, []*registry.Tool, error) {
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, nil, nil, failure.Wrap(failure.Precondition, err, "find the langhost executable for the mcp interface")
		}
	}
	if len(tools) == 0 {
		return nil, nil, nil, failure.New(failure.InvalidInput, "the mcp interface has no tools to serve")
	}
	// The settings an external client gets: detected languages, the
	// client's approval confirming the writes that go through a
	// transaction, tools that write in place hidden. Anything else would
	// measure a server no client sees. The adapter's registry still asks
	// the run's confirmation before a call leaves.
	args := []string{"mcp", "--workspace", ws}
	startCtx, cancel := context.WithTimeout(ctx, mcpStartTimeout)
	defer cancel()
	tl.write(benchEvent{Type: "mcp_start", Command: append([]string{exe}, args...)})
	m, err := startMCP(startCtx, exe, ws, args)
	if err != nil {
		return nil, nil, nil, err
	}
	reg, offered, missing, err := m.registry(startCtx, tools)
	if err != nil {
		_ = m.Close()
		return nil, nil, nil, err
	}
	if len(missing) > 0 {
		tl.write(benchEvent{Type: "mcp_not_served", Tools: missing})
	}
	return m, reg, offered, nil
}

// startMCP starts the server in its own process group and connects to it.
func startMCP(ctx context.Context, exe, ws string, args []string) (*mcpServer, error) {
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return nil, failure.Wrap(failure.Precondition, err, "pipe to langhost mcp")
	}
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		stdinR.Close()
		stdinW.Close()
		return nil, failure.Wrap(failure.Precondition, err, "pipe from langhost mcp")
	}
	cmd := exec.Command(exe, args...)
	cmd.Dir = ws
	cmd.Stdin, cmd.Stdout = stdinR, stdoutW
	m := &mcpServer{cmd: cmd, stderr: &tailBuffer{max: maxMCPStderr}, exited: make(chan struct{})}
	cmd.Stderr = m.stderr
	// The server's plugins and language servers may keep stderr open
	// after it exits; Wait must not wait for them.
	cmd.WaitDelay = time.Second
	// SIGTERM on our death: the server then stops its own plugins.
	m.group = procgroup.New(cmd, syscall.SIGTERM)
	err = m.group.Start()
	// The child has its ends; ours are the others.
	stdinR.Close()
	stdoutW.Close()
	if err != nil {
		stdinW.Close()
		stdoutR.Close()
		return nil, failure.Wrap(failure.Precondition, err, "start %s mcp", exe)
	}
	go func() {
		m.waitErr = cmd.Wait()
		close(m.exited)
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "langhost-bench", Version: host.Version}, nil)
	m.session, err = client.Connect(ctx, &mcp.IOTransport{Reader: stdoutR, Writer: stdinW}, nil)
	if err != nil {
		stdinW.Close()
		stdoutR.Close()
		_ = m.stop(0)
		code := failure.Precondition
		if ctx.Err() != nil {
			code = failure.CodeOf(ctx.Err())
		}
		return nil, failure.Wrap(code, err, "connect to %s mcp%s", exe, m.stderrTail())
	}
	return m, nil
}

// registry lists the server's tools and returns a registry of those among
// want, in want's order, and the ids of want it does not serve.
// Descriptions and input schemas are the server's (what an MCP client
// sees); the kind, categories and side effects that roles decide on are
// the host's own, since tools/list does not carry them. Serving none of
// want is an error.
func (m *mcpServer) registry(ctx context.Context, want []*registry.Tool) (*registry.Registry, []*registry.Tool, []string, error) {
	ids := make([]string, len(want))
	for i, t := range want {
		ids[i] = t.ID
	}
	names, err := toolname.NewTable(ids)
	if err != nil {
		return nil, nil, nil, failure.Wrap(failure.InvalidInput, err, "mcp interface")
	}
	served := map[string]*mcp.Tool{}
	for t, err := range m.session.Tools(ctx, nil) {
		if err != nil {
			code := failure.Precondition
			if ctx.Err() != nil {
				code = failure.CodeOf(ctx.Err())
			}
			return nil, nil, nil, failure.Wrap(code, err, "list the tools of langhost mcp%s", m.stderrTail())
		}
		// Filter again: only the tools asked for, whatever else is served.
		if id, ok := names.ID(t.Name); ok {
			served[id] = t
		}
	}
	reg := registry.New()
	out := make([]*registry.Tool, 0, len(want))
	var missing []string
	for _, t := range want {
		st := served[t.ID]
		if st == nil {
			missing = append(missing, t.ID)
			continue
		}
		schema, err := inputSchema(st)
		if err != nil {
			return nil, nil, nil, failure.Wrap(failure.Precondition, err, "langhost mcp: input schema of %s", st.Name)
		}
		w := &registry.Tool{ID: t.ID, Language: t.Language, Name: t.Name, Description: st.Description, Kind: t.Kind,
			Categories: t.Categories, InputSchema: schema, RequiresConfirmation: t.RequiresConfirmation,
			ReadOnly: t.ReadOnly, Idempotent: t.Idempotent, SideEffects: t.SideEffects, FailureCodes: t.FailureCodes,
			Source: t.Source, Command: t.Command, Version: t.Version,
			Handler: mcpHandler{m: m, id: t.ID, name: st.Name}}
		if err := reg.Add(w); err != nil {
			return nil, nil, nil, err
		}
		out = append(out, w)
	}
	if len(out) == 0 {
		return nil, nil, nil, failure.New(failure.Precondition, "langhost mcp serves none of %s%s", strings.Join(missing, ", "), m.stderrTail())
	}
	return reg, out, missing, nil
}

// inputSchema reads a tool's input schema as the registry's type.
func inputSchema(t *mcp.Tool) (*jsonschema.Schema, error) {
	raw, err := json.Marshal(t.InputSchema)
	if err != nil {
		return nil, err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// Calls is the number of tool calls sent over MCP.
func (m *mcpServer) Calls() int { return int(m.calls.Load()) }

// Pid is the server's process id.
func (m *mcpServer) Pid() int { return m.group.Pid() }

// Close ends the session, which closes the server's stdin; a server that
// has not exited after mcpStopWait is killed. Its group is swept either
// way, so that no plugin or language server it started outlives the run.
func (m *mcpServer) Close() error { return m.stop(mcpStopWait) }

// stop ends the session, gives the server wait to exit, then kills its
// group. A server that failed to start gets no wait: it may never read
// its stdin.
func (m *mcpServer) stop(wait time.Duration) error {
	var err error
	m.once.Do(func() {
		if m.session != nil {
			_ = m.session.Close()
		}
		if wait > 0 {
			select {
			case <-m.exited:
			case <-time.After(wait):
			}
		}
		err = m.group.Kill()
		<-m.exited
	})
	return err
}

// stderrTail is the end of the server's stderr, to append to an error.
func (m *mcpServer) stderrTail() string {
	s := strings.TrimSpace(m.stderr.String())
	if s == "" {
		return ""
	}
	return "; its stderr ends:\n" + s
}

// mcpHandler calls one tool over MCP.
type mcpHandler struct {
	m    *mcpServer
	id   string
	name string
}

func (h mcpHandler) Call(ctx context.Context, call registry.Call) (*registry.Result, error) {
	h.m.calls.Add(1)
	res, err := h.m.session.CallTool(ctx, &mcp.CallToolParams{Name: h.name, Arguments: call.Input})
	if err != nil {
		if ctx.Err() != nil {
			return nil, failure.Wrap(failure.CodeOf(ctx.Err()), err, "%s over MCP", h.id)
		}
		return nil, failure.Wrap(failure.Internal, err, "%s over MCP", h.id)
	}
	return fromMCP(h.id, res)
}

// mcpOutcome is what langhost mcp puts in structuredContent: the registry
// result's fields and ok, and an error object when the call failed.
type mcpOutcome struct {
	OK    *bool `json:"ok"`
	Error *struct {
		Code    failure.Code   `json:"code"`
		Message string         `json:"message"`
		Field   string         `json:"field,omitempty"`
		Details map[string]any `json:"details,omitempty"`
	} `json:"error"`
}

// fromMCP turns a tool result back into what the registry call returned:
// a Result (OK false for a tool that reported failure) or an error of the
// same failure class. The server's answer is parsed as untrusted: anything
// that is not langhost's shape is an internal failure naming the tool.
func fromMCP(id string, res *mcp.CallToolResult) (*registry.Result, error) {
	raw, err := structuredJSON(res)
	if err != nil {
		return nil, failure.New(failure.Internal, "%s over MCP: %v", id, err)
	}
	var o mcpOutcome
	if err := json.Unmarshal(raw, &o); err != nil || o.OK == nil {
		return nil, failure.New(failure.Internal, "%s over MCP: the result is not a langhost result: %.200q", id, raw)
	}
	// The error's own fields are not the result's.
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, failure.New(failure.Internal, "%s over MCP: %v", id, err)
	}
	delete(fields, "error")
	var r *registry.Result
	// A CLI tool's result has its exit code; a semantic operation's
	// answer, only its own keys.
	if _, ran := fields["exit_code"]; ran || o.Error == nil && len(fields) > 1 {
		b, _ := json.Marshal(fields)
		r = new(registry.Result)
		if err := json.Unmarshal(b, r); err != nil {
			return nil, failure.New(failure.Internal, "%s over MCP: result: %v", id, err)
		}
		r.Duration = time.Duration(r.DurationMS * float64(time.Millisecond))
	}
	switch {
	case o.Error == nil && res.IsError:
		return nil, failure.New(failure.Internal, "%s over MCP: an error result without an error object", id)
	case o.Error == nil:
		if r == nil {
			return nil, failure.New(failure.Internal, "%s over MCP: a successful result without a result", id)
		}
		return r, nil
	case o.Error.Code == failure.ToolFailed && r != nil:
		// The tool ran and reported failure: a result, as in process.
		r.OK = false
		return r, nil
	}
	code := o.Error.Code
	if code == "" {
		code = failure.Internal
	}
	// The server's message starts with the field, as Error writes it.
	msg := strings.TrimPrefix(o.Error.Message, o.Error.Field+": ")
	if o.Error.Field == "" {
		msg = o.Error.Message
	}
	return nil, &failure.Error{Code: code, Field: o.Error.Field, Message: msg, Details: o.Error.Details}
}

// structuredJSON returns the result's structuredContent as JSON, or, from
// a server that sends none, its one text content when that is a JSON object.
func structuredJSON(res *mcp.CallToolResult) ([]byte, error) {
	if res.StructuredContent != nil {
		return json.Marshal(res.StructuredContent)
	}
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok && json.Valid([]byte(t.Text)) && strings.HasPrefix(strings.TrimSpace(t.Text), "{") {
			return []byte(t.Text), nil
		}
	}
	return nil, errors.New("the result has neither structuredContent nor JSON text content")
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   bytes.Buffer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b.Write(p)
	if over := t.b.Len() - t.max; over > 0 {
		t.b.Next(over)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.b.String()
}

// endEvent is the timeline line of a server that stopped.
func (m *mcpServer) endEvent() benchEvent {
	ev := benchEvent{Type: "mcp_end", ToolCalls: m.Calls()}
	select {
	case <-m.exited:
		if m.cmd.ProcessState != nil {
			code := m.cmd.ProcessState.ExitCode()
			ev.ExitCode = &code
		}
		if m.waitErr != nil {
			ev.Error = fmt.Sprintf("%v%s", m.waitErr, m.stderrTail())
		}
	default:
	}
	return ev
}
