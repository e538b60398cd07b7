package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// vetMain is a program go vet reports one problem in, at main.go:6:14.
const vetMain = "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Printf(\"%d\\n\", \"x\")\n}\n"

const vetLine = `main.go:6:14: warning: fmt.Printf format %d has arg "x" of wrong type string [D1]`

// vetWorkspace is a Go module go vet finds one problem in.
func vetWorkspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), "module example.com/app\n\ngo 1.22\n")
	write(t, filepath.Join(dir, "main.go"), vetMain)
	return dir
}

func TestRunPacket(t *testing.T) {
	ws := vetWorkspace(t)
	t.Run("json", func(t *testing.T) {
		c := newCLI(t)
		c.ws = ws
		o := c.run("run", "go.vet", "--packet", "compact")
		if o.code != 1 {
			t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
		}
		var res struct {
			Packet     *diagnostic.Packet `json:"packet"`
			RawOmitted bool               `json:"rawOmitted"`
			Stderr     *string            `json:"stderr"`
			Command    []string           `json:"command"`
		}
		raw, _ := json.Marshal(o.env.Data)
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatal(err)
		}
		if res.Packet == nil || res.Packet.Mode != "compact" || len(res.Packet.Items) != 1 || res.Packet.Items[0].Location != "main.go:6:14" {
			t.Fatalf("result = %s", raw)
		}
		if !res.RawOmitted || res.Stderr != nil || strings.Contains(strings.Join(res.Command, " "), "compact") {
			t.Errorf("result = %s", raw)
		}
	})
	t.Run("text", func(t *testing.T) {
		c := newCLI(t)
		c.ws, c.json = ws, false
		o := c.run("run", "go.vet", "--packet", "compact")
		if o.code != 1 || !strings.Contains(o.stdout, "\n"+vetLine+"\n") {
			t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
		}
		// The packet is the diagnostics: shown once, not again as fields.
		for _, no := range []string{"packet", "rawOmitted", "items:", "[D1]\n" + vetLine} {
			if strings.Contains(o.stdout, no) {
				t.Errorf("text shows %q:\n%s", no, o.stdout)
			}
		}
	})
	t.Run("refused", func(t *testing.T) {
		for _, tc := range []struct {
			name, field string
			args        []string
		}{
			{"unknown mode", "--packet", []string{"run", "go.vet", "--packet", "evil"}},
			{"control bytes", "--packet", []string{"run", "go.vet", "--packet", "compact\x1b[2J"}},
			{"a tool without diagnostics", "--packet", []string{"run", "go.fmt", "--packet", "compact"}},
			{"the input asks otherwise", "--packet", []string{"run", "go.vet", "--packet", "compact", "packet=raw"}},
			{"unknown mode as input", "packet", []string{"run", "go.vet", "packet=evil"}},
			{"input on a tool without diagnostics", "packet", []string{"run", "go.fmt", "packet=compact"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				c := newCLI(t)
				c.ws = ws
				o := c.run(tc.args...)
				if o.code != 2 || len(o.env.Errors) == 0 || o.env.Errors[0].Code != "invalid_input" || o.env.Errors[0].Field != tc.field {
					t.Fatalf("exit %d, errors %+v", o.code, o.env.Errors)
				}
				if strings.Contains(o.stdout, "\x1b") {
					t.Errorf("a control byte reached the output: %q", o.stdout)
				}
			})
		}
	})
}

// A packet's text is one line per item with its fixes indented below;
// what a server or tool wrote cannot move the cursor or clear the screen.
func TestRenderPacket(t *testing.T) {
	p := &diagnostic.Packet{Mode: "guided", Items: []diagnostic.Item{
		{ID: "UnusedImport", Severity: "error", Location: "main.go:5:2", Message: `"os" imported and not used`, Symbol: "Shape/Area",
			Suggestions: []diagnostic.Suggestion{{Title: "Organize Imports", Tool: "go.apply_code_action", Input: map[string]any{"file": "main.go", "line": 5, "title": "Organize Imports"}}}},
		{ID: "D2", Severity: "warning", Location: "a\x1b[2J.go:1", Message: "bad\rnews\x07", Suggestions: []diagnostic.Suggestion{{Title: "x\x1b]0;pwned\x07"}}},
	}}
	var b bytes.Buffer
	renderer{w: &b}.packet(p)
	want := `main.go:5:2: error: "os" imported and not used [UnusedImport] (in Shape/Area)
  fix: Organize Imports -> go.apply_code_action {"file":"main.go","line":5,"title":"Organize Imports"}
a\x1b[2J.go:1: warning: bad\x0dnews\x07 [D2]
  fix: x\x1b]0;pwned\x07
`
	if b.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", b.String(), want)
	}
}

// MCP clients get packets through the input schema: go_vet takes packet
// and answers with it.
func TestMCPPacket(t *testing.T) {
	f := goWorkspace(t)
	if err := os.WriteFile(filepath.Join(f.workspace, "main.go"), []byte(vetMain), 0o644); err != nil {
		t.Fatal(err)
	}
	cs, _ := startStdio(t, f, nil)
	tool := listTools(t, cs)["go_vet"]
	if tool == nil {
		t.Fatal("go_vet not served")
	}
	schema, _ := json.Marshal(tool.InputSchema)
	if !strings.Contains(string(schema), `"packet":{`) {
		t.Errorf("input schema has no packet: %s", schema)
	}
	res, st := callTool(t, cs, "go_vet", map[string]any{"packet": "compact"})
	p, _ := st["packet"].(map[string]any)
	items, _ := p["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["location"] != "main.go:6:14" || st["rawOmitted"] != true || st["stderr"] != nil {
		t.Errorf("structured content = %v", st)
	}
	if !res.IsError {
		t.Errorf("a vet failure is not an error result")
	}
	bad, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "go_vet", Arguments: map[string]any{"packet": "evil"}})
	if err == nil && (!bad.IsError || !strings.Contains(resultText(bad), "packet")) {
		t.Errorf("packet evil: %s", resultText(bad))
	}
}
