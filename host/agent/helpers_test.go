package agent_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/agent"
	"github.com/langhost/langhost/host/agent/model"
	"github.com/langhost/langhost/host/agent/modeltest"
	"github.com/langhost/langhost/host/agent/transcript"
	"github.com/langhost/langhost/host/config"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/plugins/builtin"
	"github.com/langhost/langhost/plugins/builtin/builtintest"
)

func TestMain(m *testing.M) { builtintest.Main(m) }

// goFixture is a module whose Add subtracts: TestAdd fails until it is fixed.
var goFixture = map[string]string{
	"go.mod": "module example.com/calc\n\ngo 1.22\n",
	"calc.go": `package calc

// Add returns the sum of a and b.
func Add(a, b int) int {
	return a - b
}
`,
	"calc_test.go": `package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Fatalf("Add(2, 3) = %d, want 5", got)
	}
}
`,
}

// newHost loads the embedded specs (with the built-in semantic plugin)
// over a new workspace holding files.
func newHost(t testing.TB, files map[string]string) *host.Host {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := config.Load(config.Paths{}, nil, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	cfg.Workspace = dir
	h, err := host.Open(context.Background(), cfg, hclog.NewNullLogger(), host.Options{Builtins: builtin.Agents()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// scripted returns a provider talking to a scripted model server over the
// OpenAI wire format, and the server.
func scripted(t testing.TB, script string) (model.Provider, *modeltest.Server) {
	t.Helper()
	s, err := modeltest.ParseScript(t.Name(), []byte(script))
	if err != nil {
		t.Fatal(err)
	}
	srv := modeltest.NewServer(t, s)
	zero := 0
	p, err := model.New(model.Config{Provider: "openai-compatible", Model: "scripted", BaseURL: srv.OpenAIURL(), MaxRetries: &zero}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p, srv
}

// executor returns an executor over h's registry that confirms every
// write, recording to a transcript in the workspace.
func executor(t testing.TB, h *host.Host, p model.Provider) (*agent.Executor, *transcript.Writer) {
	t.Helper()
	w, err := transcript.Create(h.Workspace, transcript.NewID(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return &agent.Executor{Provider: p, Registry: h.Registry, Transcript: w,
		Confirm: func(*registry.Tool) bool { return true }, WorkspaceCode: true}, w
}

// goTools are the tools the go-coding agent is offered.
func goTools(t testing.TB, h *host.Host) []*registry.Tool {
	t.Helper()
	for _, a := range agent.Specialists(h.Specs, h.Registry) {
		if a.ID == "go-coding" {
			tools := make([]*registry.Tool, 0, len(a.Tools))
			for _, id := range a.Tools {
				tool, err := h.Registry.Tool(id)
				if err != nil {
					t.Fatal(err)
				}
				tools = append(tools, tool)
			}
			return tools
		}
	}
	t.Fatal("no go-coding agent")
	return nil
}

func events(t testing.TB, w *transcript.Writer) []transcript.Event {
	t.Helper()
	evs, err := transcript.Read(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func userTask(s string) []model.Message { return []model.Message{{Role: model.User, Content: s}} }

func readFile(t testing.TB, h *host.Host, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(h.Workspace.Dir(), name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// refusals lists why the scripted server refused requests, for failures.
func refusals(srv *modeltest.Server) string {
	var out []string
	for i, r := range srv.Requests() {
		if r.Error != "" {
			out = append(out, fmt.Sprintf("request %d: %s", i, r.Error))
		}
	}
	return strings.Join(out, "; ")
}
