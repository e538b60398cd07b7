package difftest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langhost/langhost/host/toolname"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Result is one langhost answer: the structured data, or the failure
// class and message of a failed call.
type Result struct {
	Data    json.RawMessage
	Code    string
	Message string
}

// Answered reports whether Data holds the operation's answer: the call
// succeeded, or it ran and its verdict is tool_failed (the CLI fails a
// read-only call that reports errors, go.diagnostics on a file that does
// not compile, with the whole result in the envelope's data).
func (r Result) Answered() bool {
	if r.Code == "" {
		return true
	}
	d := bytes.TrimSpace(r.Data)
	return r.Code == string(failure.ToolFailed) && len(d) > 0 && d[0] == '{'
}

// Path is one way of asking langhost.
type Path interface {
	Name() string
	Call(ctx context.Context, tool string, input map[string]any) (Result, error)
	Close()
}

// Langhost is how to run the langhost binary: its path and the
// environment of every process (config, state and runtime directories of
// the caller's choosing).
type Langhost struct {
	Exe string
	Env []string
}

// CLI asks `langhost run <lang>.<tool> --format json` in ws: through the
// workspace's daemon, or in the process with noDaemon.
type CLI struct {
	lh       Langhost
	lang, ws string
	noDaemon bool
}

// NewCLI returns the CLI path.
func (lh Langhost) NewCLI(lang, ws string, noDaemon bool) *CLI {
	return &CLI{lh: lh, lang: lang, ws: ws, noDaemon: noDaemon}
}

// Name is "cli-daemon" or "cli-no-daemon".
func (c *CLI) Name() string {
	if c.noDaemon {
		return "cli-no-daemon"
	}
	return "cli-daemon"
}

// Call runs one `langhost run`.
func (c *CLI) Call(ctx context.Context, tool string, input map[string]any) (Result, error) {
	body, err := json.Marshal(input)
	if err != nil {
		return Result{}, err
	}
	// --allow-workspace-code: the harness runs the bare server on the
	// same workspace, MSBuild's design-time build included, so running it
	// is already consented to (MCP takes the client's approval as consent).
	args := []string{"run", c.lang + "." + tool, "--input", string(body), "--workspace", c.ws, "--format", "json", "--allow-workspace-code"}
	if c.noDaemon {
		args = append(args, "--no-daemon")
	}
	cmd := exec.CommandContext(ctx, c.lh.Exe, args...)
	cmd.Dir = c.ws
	cmd.Env = c.lh.Env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return Result{}, fmt.Errorf("langhost %s: %w", strings.Join(args[:2], " "), err)
	}
	var env struct {
		OK     bool            `json:"ok"`
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(out, &env); err != nil {
		return Result{}, fmt.Errorf("langhost %s %s: not a JSON envelope (%v): %s%s", args[1], body, err, out, stderr.Bytes())
	}
	r := Result{Data: env.Data}
	if !env.OK && len(env.Errors) > 0 {
		r.Code, r.Message = env.Errors[0].Code, env.Errors[0].Message
	}
	return r, nil
}

// Close stops the workspace's daemon (the no-daemon path has none).
func (c *CLI) Close() {
	if c.noDaemon {
		return
	}
	cmd := exec.Command(c.lh.Exe, "daemon", "stop", "--workspace", c.ws)
	cmd.Env = c.lh.Env
	_ = cmd.Run()
}

// MCP asks a long-lived `langhost mcp` through the official SDK client.
type MCP struct {
	lang string
	cs   *mcp.ClientSession
}

// NewMCP starts `langhost mcp` in ws and connects to it.
func (lh Langhost) NewMCP(ctx context.Context, lang, ws string) (*MCP, error) {
	cmd := exec.Command(lh.Exe, "mcp", "--workspace", ws, "--language", lang)
	cmd.Dir = ws
	cmd.Env = lh.Env
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "difftest"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, fmt.Errorf("starting langhost mcp in %s: %w", ws, err)
	}
	return &MCP{lang: lang, cs: cs}, nil
}

// Name is "mcp".
func (m *MCP) Name() string { return "mcp" }

// Call calls the tool; a tool error is a Result with its failure class.
func (m *MCP) Call(ctx context.Context, tool string, input map[string]any) (Result, error) {
	res, err := m.cs.CallTool(ctx, &mcp.CallToolParams{Name: toolname.Name(m.lang + "." + tool), Arguments: input})
	if err != nil {
		return Result{}, fmt.Errorf("mcp %s: %w", tool, err)
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return Result{}, err
	}
	r := Result{Data: data}
	if res.IsError {
		// structuredContent is the result with ok false and the error
		// object {code, message}; the text says "<id>: <code>: <message>"
		// when there is no structured content.
		var st struct {
			Error *struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(data, &st) == nil && st.Error != nil {
			r.Code, r.Message = st.Error.Code, st.Error.Message
		}
		var text string
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				text = t.Text
				break
			}
		}
		if r.Code == "" {
			r.Code, r.Message = codeOfText(text)
		}
		if r.Message == "" {
			r.Message = text
		}
		if r.Code == "" {
			return Result{}, fmt.Errorf("mcp %s: an error result without a failure code: %s", tool, text)
		}
	}
	return r, nil
}

// codeOfText reads the failure code of an error summary,
// "go.symbol_info: ambiguous_target: symbol: ...".
func codeOfText(text string) (code, message string) {
	first, _, _ := strings.Cut(text, "\n")
	_, rest, ok := strings.Cut(first, ": ")
	if !ok {
		return "", ""
	}
	code, message, _ = strings.Cut(rest, ": ")
	if code == "" || strings.ContainsAny(code, " \t") {
		return "", ""
	}
	return code, message
}

// Close ends the session, which stops the server.
func (m *MCP) Close() { _ = m.cs.Close() }
