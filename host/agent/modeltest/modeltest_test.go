package modeltest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/agent/modeltest"
)

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func TestServerRefusesWithReason(t *testing.T) {
	script, err := modeltest.ParseScript("t", []byte(`
turns:
  - expect: {tools_include: [go_build], system_contains: [Go agent]}
    reply: {text: ok}
`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, body, want string
	}{
		{"openai expectation", "/v1/chat/completions",
			`{"model":"m","messages":[{"role":"system","content":"a Python agent"},{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"py_check"}}]}`,
			`turn 0: system prompt lacks \"Go agent\"; tool list lacks \"go_build\" (got py_check)`},
		{"anthropic without max_tokens", "/v1/messages", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, "max_tokens is required"},
		{"not JSON", "/v1/messages", `{"model":`, "not a messages request"},
		{"orphan tool result", "/v1/chat/completions",
			`{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"call_9","content":"x"}]}`,
			`tool result for call \"call_9\", which the assistant message before it did not make`},
		{"orphan tool_result block", "/v1/messages",
			`{"model":"m","max_tokens":10,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"x"}]}]}`,
			`call \"toolu_1\"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := modeltest.NewServer(t, script)
			status, body := post(t, srv.URL()+tt.path, tt.body)
			if status != http.StatusBadRequest || !strings.Contains(body, tt.want) {
				t.Errorf("got %d %s, want 400 with %s", status, body, tt.want)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 || reqs[0].Turn != -1 || reqs[0].Error == "" || srv.Remaining() != 1 {
				t.Errorf("recorded %+v, %d turns left", reqs, srv.Remaining())
			}
		})
	}
}

func TestServerScriptEnds(t *testing.T) {
	srv := modeltest.NewServer(t, &modeltest.Script{Turns: []modeltest.Turn{{Reply: modeltest.Reply{Text: "only"}}}})
	body := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	if status, got := post(t, srv.OpenAIURL()+"/chat/completions", body); status != 200 || !strings.Contains(got, `"content":"only"`) {
		t.Fatalf("first answer %d %s", status, got)
	}
	status, got := post(t, srv.OpenAIURL()+"/chat/completions", body)
	if status != 400 || !strings.Contains(got, "request 2 arrived after the script's 1 turns ended") {
		t.Errorf("second answer %d %s", status, got)
	}
}

func TestParseScriptErrors(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"unknown key", "turns:\n  - reply: {text: a}\n    expcet: {}\n", "line 3: field expcet not found"},
		{"unnamed call", "turns:\n  - reply: {tool_calls: [{arguments: {a: 1}}]}\n", "turns[0].reply.tool_calls[0].name is empty"},
		{"not a list", "turns: 3\n", "cannot unmarshal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := modeltest.ParseScript("s.yaml", []byte(tt.src))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "s.yaml") {
				t.Errorf("err = %v, want %q naming s.yaml", err, tt.want)
			}
		})
	}
}

// A JSON script file is served by Start, as langhost bench does.
func TestStartServesJSONScript(t *testing.T) {
	path := filepath.Join(t.TempDir(), "script.json")
	src := `{"turns":[{"reply":{"text":"hello","tool_calls":[{"name":"go_test","arguments":{"pkg":"./..."}}]}}]}`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := modeltest.LoadScript(path)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := modeltest.Start("127.0.0.1:0", script)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	status, body := post(t, srv.URL()+"/v1/messages", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"go_test","input_schema":{"type":"object"}}]}`)
	var msg struct {
		StopReason string `json:"stop_reason"`
		Content    []struct {
			Type  string          `json:"type"`
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		} `json:"content"`
	}
	if err := json.Unmarshal([]byte(body), &msg); err != nil || status != 200 {
		t.Fatalf("%d %s: %v", status, body, err)
	}
	if msg.StopReason != "tool_use" || len(msg.Content) != 2 || msg.Content[1].Name != "go_test" || string(msg.Content[1].Input) != `{"pkg":"./..."}` {
		t.Errorf("answer %s", body)
	}
	srv.Close()
	srv.Close()
}
