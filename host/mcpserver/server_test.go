package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/config"
	"github.com/langhost/langhost/host/mcpserver"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const testSpec = `language:
  id: demo
  name: Demo
  extensions: [".demo"]
tools:
  echo:
    command: echo
    description: Echo the text
    readOnly: true
    idempotent: true
    categories: [misc]
    inputs:
      text: {type: string, required: true, arg: -1}
  fail:
    command: sh
    args: ["-c", "echo 'a.demo:3:7: bad thing' >&2; exit 2", "fail"]
    categories: [build]
    outputParsers:
      problems:
        type: diagnostics
        pattern: '^(?P<file>[^:]+):(?P<line>\d+):(?P<column>\d+): (?P<message>.*)$'
  write:
    command: touch
    pathArg: -1
    requiresConfirmation: true
bestPractices: |
  - keep it small
`

// newHost loads the demo spec (plus the embedded ones) over a temp workspace.
func newHost(t *testing.T, allow ...string) *host.Host {
	t.Helper()
	dir := t.TempDir()
	specs := filepath.Join(dir, "specs")
	ws := filepath.Join(dir, "ws")
	for _, d := range []string{specs, ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(specs, "demo.yaml"), []byte(testSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{Workspace: ws, Languages: []string{specs}, Timeout: time.Minute, MaxOutput: 1 << 20, AllowTools: allow}
	h, err := host.New(context.Background(), cfg, hclog.NewNullLogger())
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Specs.Problems) > 0 {
		t.Fatalf("spec problems: %v", h.Specs.Problems)
	}
	return h
}

// connect serves srv in memory and returns a client session.
func connect(t *testing.T, srv *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var names []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	return names
}

func TestSelect(t *testing.T) {
	h := newHost(t, "demo.write")
	tests := []struct {
		name string
		opts mcpserver.Options
		want []string
	}{
		{"language", mcpserver.Options{Languages: []string{"demo"}}, []string{"demo.echo", "demo.fail", "demo.write"}},
		{"category", mcpserver.Options{Languages: []string{"demo"}, Categories: []string{"BUILD"}}, []string{"demo.fail"}},
		{"tools glob", mcpserver.Options{Profile: "all", Tools: []string{"demo.e*", "demo.write"}}, []string{"demo.echo", "demo.write"}},
		{"exact tool", mcpserver.Options{Profile: "all", Tools: []string{"demo.fail"}}, []string{"demo.fail"}},
		{"MCP name glob", mcpserver.Options{Profile: "all", Tools: []string{"demo_e*"}}, []string{"demo.echo"}},
		{"tools of an undetected language", mcpserver.Options{Tools: []string{"demo.echo"}}, []string{"demo.echo"}},
		{"detected: none in an empty workspace", mcpserver.Options{Tools: nil, Categories: []string{"misc"}}, nil},
		{"readonly", mcpserver.Options{Languages: []string{"demo"}, Profile: "readonly"}, []string{"demo.echo"}},
		{"user profile", mcpserver.Options{Languages: []string{"demo"}, Profile: "mine", Profiles: map[string][]string{"mine": {"demo.w*", "category:build"}}}, []string{"demo.fail", "demo.write"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tools, err := mcpserver.Select(h, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tool := range tools {
				got = append(got, tool.ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSelectHidesUnconfirmedTools(t *testing.T) {
	h := newHost(t)
	for _, tc := range []struct {
		allow []string
		want  bool
	}{{nil, false}, {[]string{"demo.write"}, true}, {[]string{"demo.*"}, true}, {[]string{"demo.echo"}, false}} {
		tools, err := mcpserver.Select(h, mcpserver.Options{Languages: []string{"demo"}, Allow: tc.allow})
		if err != nil {
			t.Fatal(err)
		}
		got := slices.ContainsFunc(tools, func(t *registry.Tool) bool { return t.ID == "demo.write" })
		if got != tc.want {
			t.Errorf("allow %v: demo.write served = %v, want %v", tc.allow, got, tc.want)
		}
	}
}

func TestSelectErrors(t *testing.T) {
	h := newHost(t)
	tests := []struct {
		opts      mcpserver.Options
		code      failure.Code
		field     string
		inMessage string
	}{
		{mcpserver.Options{Languages: []string{"dmeo"}}, failure.NotFound, "language", `did you mean demo`},
		{mcpserver.Options{Tools: []string{"demo.["}}, failure.InvalidInput, "tools", `"demo.["`},
		{mcpserver.Options{Allow: []string{"["}}, failure.InvalidInput, "allow", `"["`},
		{mcpserver.Options{Profile: "redonly"}, failure.NotFound, "profile", `did you mean readonly`},
		{mcpserver.Options{Profile: "x", Profiles: map[string][]string{"x": {"["}}}, failure.InvalidInput, "profile", `bad glob "["`},
	}
	for _, tt := range tests {
		_, err := mcpserver.Select(h, tt.opts)
		var fe *failure.Error
		if !errorsAs(err, &fe) || fe.Code != tt.code || fe.Field != tt.field || !strings.Contains(err.Error(), tt.inMessage) {
			t.Errorf("Select(%+v) = %v, want %s on %s mentioning %s", tt.opts, err, tt.code, tt.field, tt.inMessage)
		}
	}
}

func TestToolsListing(t *testing.T) {
	h := newHost(t)
	srv, err := mcpserver.New(h, mcpserver.Options{Languages: []string{"demo"}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		byName[tool.Name] = tool
	}
	if _, ok := byName["demo_write"]; ok {
		t.Error("demo.write needs confirmation but is served without --allow")
	}
	echo := byName["demo_echo"]
	if echo == nil {
		t.Fatalf("demo_echo not listed: %v", toolNames(t, cs))
	}
	a := echo.Annotations
	if a == nil || !a.ReadOnlyHint || !a.IdempotentHint || a.DestructiveHint == nil || *a.DestructiveHint {
		t.Errorf("echo annotations = %+v", a)
	}
	in, _ := json.Marshal(echo.InputSchema)
	if !strings.Contains(string(in), `"text"`) || !strings.Contains(string(in), `"required":["text"]`) {
		t.Errorf("input schema = %s", in)
	}
	if echo.OutputSchema != nil {
		t.Errorf("output schema listed without OutputSchemas: %v", echo.OutputSchema)
	}
	// With OutputSchemas, each tool declares the shape of its structuredContent.
	srv, err = mcpserver.New(h, mcpserver.Options{Languages: []string{"demo"}, OutputSchemas: true})
	if err != nil {
		t.Fatal(err)
	}
	cs = connect(t, srv)
	res, err = cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name != "demo_echo" {
			continue
		}
		out, _ := json.Marshal(tool.OutputSchema)
		for _, key := range []string{`"diagnostics"`, `"exit_code"`, `"error"`} {
			if !strings.Contains(string(out), key) {
				t.Errorf("output schema lacks %s: %s", key, out)
			}
		}
		if tool.Title == "" {
			t.Error("no title with OutputSchemas")
		}
		// Results still validate against the declared schema in the client.
		if r, _ := call(t, cs, "demo_echo", map[string]any{"text": "x"}); r.IsError {
			t.Errorf("call with output schema failed: %s", text(r))
		}
	}
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var st map[string]any
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatalf("structuredContent of %s: %v", name, err)
	}
	return res, st
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestCallResults(t *testing.T) {
	h := newHost(t, "demo.write")
	srv, err := mcpserver.New(h, mcpserver.Options{Languages: []string{"demo"}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)

	t.Run("ok", func(t *testing.T) {
		res, st := call(t, cs, "demo_echo", map[string]any{"text": "hello"})
		if res.IsError || st["ok"] != true || st["stdout"] != "hello\n" || st["exit_code"] != 0.0 {
			t.Errorf("isError=%v structured=%v", res.IsError, st)
		}
		if !strings.HasPrefix(text(res), "demo.echo ok (exit 0,") || !strings.Contains(text(res), "hello") {
			t.Errorf("summary = %q", text(res))
		}
	})
	t.Run("tool failed", func(t *testing.T) {
		res, st := call(t, cs, "demo_fail", nil)
		if !res.IsError || st["ok"] != false || st["exit_code"] != 2.0 {
			t.Fatalf("isError=%v structured=%v", res.IsError, st)
		}
		if code := st["error"].(map[string]any)["code"]; code != "tool_failed" {
			t.Errorf("error code = %v", code)
		}
		diags := st["diagnostics"].([]any)
		d := diags[0].(map[string]any)
		if len(diags) != 1 || d["path"] != "a.demo" || d["line"] != 3.0 || d["column"] != 7.0 || d["message"] != "bad thing" {
			t.Errorf("diagnostics = %v", diags)
		}
		want := "demo.fail failed (exit 2): 1 error\na.demo:3:7: error: bad thing"
		if text(res) != want {
			t.Errorf("summary = %q, want %q", text(res), want)
		}
	})
	t.Run("invalid input", func(t *testing.T) {
		for _, tc := range []struct {
			args  any
			field string
		}{
			{map[string]any{"text": 5}, "text"},
			{map[string]any{"text": "x", "bogus": true}, "bogus"},
			{map[string]any{}, "text"},
		} {
			res, st := call(t, cs, "demo_echo", tc.args)
			e, _ := st["error"].(map[string]any)
			if !res.IsError || e["code"] != "invalid_input" || e["field"] != tc.field {
				t.Errorf("args %v: isError=%v error=%v, want invalid_input on %s", tc.args, res.IsError, e, tc.field)
			}
		}
	})
	t.Run("path outside workspace", func(t *testing.T) {
		res, st := call(t, cs, "demo_write", map[string]any{"path": "../escape"})
		e, _ := st["error"].(map[string]any)
		if !res.IsError || e["field"] != "path" {
			t.Errorf("isError=%v error=%v", res.IsError, e)
		}
	})
	t.Run("confirmed write", func(t *testing.T) {
		res, _ := call(t, cs, "demo_write", map[string]any{"path": "made.txt"})
		if res.IsError {
			t.Fatalf("allowed tool failed: %s", text(res))
		}
		if _, err := os.Stat(filepath.Join(h.Workspace.Dir(), "made.txt")); err != nil {
			t.Error(err)
		}
	})
	t.Run("unknown tool is a protocol error", func(t *testing.T) {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "demo_nope"})
		if err == nil {
			t.Error("no error")
		}
	})
}

// panicky is a handler with a bug.
type panicky struct{}

func (panicky) Call(context.Context, registry.Call) (*registry.Result, error) { panic("boom") }

func TestPanicBecomesInternalResult(t *testing.T) {
	h := newHost(t)
	if err := h.Registry.Add(&registry.Tool{ID: "demo.buggy", Language: "demo", Kind: registry.KindSemantic, Handler: panicky{}}); err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(h, mcpserver.Options{Languages: []string{"demo"}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	res, st := call(t, cs, "demo_buggy", nil)
	if e, _ := st["error"].(map[string]any); !res.IsError || e["code"] != "internal" || !strings.Contains(e["message"].(string), "boom") {
		t.Errorf("isError=%v structured=%v", res.IsError, st)
	}
	// The server still serves.
	if res, _ := call(t, cs, "demo_echo", map[string]any{"text": "after"}); res.IsError {
		t.Errorf("call after panic failed: %s", text(res))
	}
}

// progressing reports percentages like a semantic operation.
type progressing struct{}

func (progressing) Call(_ context.Context, c registry.Call) (*registry.Result, error) {
	for _, p := range []float64{10, 50, 40, 100} {
		c.Progress("indexing", p)
		time.Sleep(30 * time.Millisecond)
	}
	// Work left after the tool said 100% (shaping the result): the
	// heartbeat goes on meanwhile.
	time.Sleep(100 * time.Millisecond)
	return &registry.Result{OK: true, Data: json.RawMessage(`{"symbols":3}`)}, nil
}

func TestProgressNotifications(t *testing.T) {
	h := newHost(t)
	if err := h.Registry.Add(&registry.Tool{ID: "demo.index", Language: "demo", Kind: registry.KindSemantic, Handler: progressing{}}); err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(h, mcpserver.Options{Languages: []string{"demo"}, ProgressInterval: 25 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *mcp.ProgressNotificationParams, 100)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "test"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { got <- r.Params },
	})
	cs, err := client.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: "demo_index"}
	params.SetProgressToken("tok-1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("call: %v %v", err, res)
	}
	if !strings.Contains(text(res), `{"symbols":3}`) {
		t.Errorf("summary lacks data: %q", text(res))
	}
	// Notifications are delivered asynchronously; the final one may trail the result.
	var msgs []string
	last := -1.0
	deadline := time.After(5 * time.Second)
	for len(msgs) == 0 || !strings.Contains(msgs[len(msgs)-1], "finished") {
		select {
		case p := <-got:
			if p.ProgressToken != "tok-1" {
				t.Errorf("token = %v", p.ProgressToken)
			}
			if p.Progress <= last {
				t.Errorf("progress went from %v to %v (%q)", last, p.Progress, p.Message)
			}
			if p.Progress >= 100 && !strings.Contains(p.Message, "finished") {
				t.Errorf("progress %v of %v before the end (%q)", p.Progress, p.Total, p.Message)
			}
			last = p.Progress
			msgs = append(msgs, p.Message)
		case <-deadline:
			t.Fatalf("no final notification; got %q", msgs)
		}
	}
	if msgs[0] != "demo.index started" || !slices.Contains(msgs, "indexing") {
		t.Errorf("messages = %q", msgs)
	}
	// 100 of 100 comes with the end only, and the call is not silent
	// between the tool's 100% and its result.
	if last != 100 {
		t.Errorf("the final notification is at %v, want 100", last)
	}
	after := msgs[slices.Index(msgs, "indexing")+1:]
	for len(after) > 0 && after[0] == "indexing" {
		after = after[1:]
	}
	if !slices.ContainsFunc(after, func(m string) bool { return strings.HasPrefix(m, "running for") }) {
		t.Errorf("no heartbeat after the tool's 100%%: %q", msgs)
	}
}

func TestPromptsAndResources(t *testing.T) {
	h := newHost(t)
	srv, err := mcpserver.New(h, mcpserver.Options{Languages: []string{"demo"}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	ctx := context.Background()
	list, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Prompts) != 1 || list.Prompts[0].Name != "demo-coding" || list.Prompts[0].Arguments[0].Name != "task" {
		t.Fatalf("prompts = %+v", list.Prompts)
	}
	p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "demo-coding", Arguments: map[string]string{"task": "Add a flag."}})
	if err != nil {
		t.Fatal(err)
	}
	body := p.Messages[0].Content.(*mcp.TextContent).Text
	for _, want := range []string{"## Objective\n\nAdd a flag.", "- `demo_echo` (text*, workdir): Echo the text", "keep it small", "`.demo`"} {
		if !strings.Contains(body, want) {
			t.Errorf("prompt lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "demo.write") {
		t.Errorf("prompt lists a tool that is not served:\n%s", body)
	}
	r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.PrerequisitesURI})
	if err != nil {
		t.Fatal(err)
	}
	if doc := r.Contents[0].Text; !strings.HasPrefix(doc, "# Tool prerequisites") || !strings.Contains(doc, "demo.echo") {
		t.Errorf("prerequisites:\n%s", doc)
	}
	r, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.LanguageURI("demo")})
	if err != nil {
		t.Fatal(err)
	}
	if doc := r.Contents[0].Text; !strings.Contains(doc, "| `demo_write` | no (filtered or needs --allow) |") {
		t.Errorf("language summary:\n%s", doc)
	}
}

// Tool ids that would share an MCP name are refused with both ids named;
// an id too long for clients is served under a shortened, callable name.
func TestToolNamesOverMCP(t *testing.T) {
	h := newHost(t)
	long := "demo." + strings.Repeat("very_long_", 8) + "tool"
	for _, id := range []string{"demo.a_b", long} {
		if err := h.Registry.Add(&registry.Tool{ID: id, Language: "demo", Kind: registry.KindSemantic, ReadOnly: true, Handler: okHandler{}}); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := mcpserver.New(h, mcpserver.Options{Languages: []string{"demo"}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	var short string
	for _, name := range toolNames(t, cs) {
		if !regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`).MatchString(name) {
			t.Errorf("name %q breaks clients", name)
		}
		if strings.HasPrefix(name, "demo_very_long_") {
			short = name
		}
	}
	if len(short) != 64 {
		t.Fatalf("long id served as %q", short)
	}
	if res, _ := call(t, cs, short, nil); res.IsError {
		t.Errorf("calling the shortened name: %s", text(res))
	}

	if err := h.Registry.Add(&registry.Tool{ID: "demo.a.b", Language: "demo", Handler: okHandler{}}); err != nil {
		t.Fatal(err)
	}
	_, err = mcpserver.New(h, mcpserver.Options{Languages: []string{"demo"}})
	var fe *failure.Error
	if !errorsAs(err, &fe) || fe.Code != failure.InvalidInput || !strings.Contains(err.Error(), `"demo.a.b" and "demo.a_b"`) && !strings.Contains(err.Error(), `"demo.a_b" and "demo.a.b"`) {
		t.Errorf("colliding names: %v", err)
	}
}

// okHandler succeeds.
type okHandler struct{}

func (okHandler) Call(context.Context, registry.Call) (*registry.Result, error) {
	return &registry.Result{OK: true}, nil
}
