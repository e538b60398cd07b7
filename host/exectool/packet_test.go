package exectool

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/languages"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// vetFixture is a Go module go vet finds one problem in.
func vetFixture(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("the go toolchain is needed: %v", err)
	}
	root := t.TempDir()
	for name, data := range map[string]string{
		"go.mod":  "module example.com/app\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Printf(\"%d\\n\", \"x\")\n}\n",
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// goRegistry registers the shipped go spec, with extra appended to it
// (a top-level packet default), and the demo spec.
func goRegistry(t *testing.T, root, extra string) *registry.Registry {
	t.Helper()
	goYAML, err := fs.ReadFile(languages.FS, "go.yaml")
	if err != nil {
		t.Fatal(err)
	}
	set := spec.Load([]spec.Source{{Name: "test", FS: fstest.MapFS{
		"go.yaml":   {Data: append(goYAML, extra...)},
		"demo.yaml": {Data: []byte(demoSpec)},
	}}})
	if len(set.Problems) > 0 {
		t.Fatalf("spec problems: %v", set.Problems)
	}
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	if err := Register(reg, set, Options{Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	return reg
}

// shaped is what a shaped result adds, read back from its JSON.
type shaped struct {
	Packet     *diagnostic.Packet `json:"packet"`
	RawOmitted bool               `json:"rawOmitted"`
	Stdout     string             `json:"stdout"`
	Stderr     string             `json:"stderr"`
}

func shapedOf(t *testing.T, res *registry.Result) shaped {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var s shaped
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPacketGoVet(t *testing.T) {
	root := vetFixture(t)
	reg := goRegistry(t, root, "")
	const loc = "main.go:6:14"
	vet := func(t *testing.T, reg *registry.Registry, input map[string]any) *registry.Result {
		t.Helper()
		res, err := reg.Call(context.Background(), "go.vet", registry.Call{WorkspaceCode: true, Input: input})
		if err != nil {
			t.Fatal(err)
		}
		if res.OK || res.Counts.Warning != 1 {
			t.Fatalf("result = %s", jsonOf(t, res))
		}
		// A compact or guided result carries the diagnostics in its packet alone.
		if shapedOf(t, res).Packet == nil && (len(res.Diagnostics) != 1 || diagnostic.Location(res.Diagnostics[0]) != loc) {
			t.Fatalf("result = %s", jsonOf(t, res))
		}
		if slices.ContainsFunc(res.Command, func(a string) bool {
			return strings.Contains(a, "compact") || strings.Contains(a, "guided") || a == "raw"
		}) {
			t.Errorf("the packet reached argv: %q", res.Command)
		}
		return res
	}
	for _, mode := range []string{"compact", "guided"} {
		t.Run(mode, func(t *testing.T) {
			s := shapedOf(t, vet(t, reg, map[string]any{"packet": mode}))
			if s.Packet == nil || s.Packet.Mode != mode || s.Packet.Counts.Warning != 1 || len(s.Packet.Items) != 1 {
				t.Fatalf("packet = %+v", s.Packet)
			}
			it := s.Packet.Items[0]
			if it.Location != loc || it.Severity != "warning" || it.ID != "D1" || !strings.Contains(it.Message, "fmt.Printf format %d has arg \"x\" of wrong type string") || len(it.Suggestions) != 0 {
				t.Errorf("item = %+v", it)
			}
			if !s.RawOmitted || s.Stdout != "" || s.Stderr != "" {
				t.Errorf("raw text kept: %+v", s)
			}
			if res := vet(t, reg, map[string]any{"packet": mode}); len(res.Diagnostics) != 0 || len(res.Outputs) != 0 {
				t.Errorf("compact kept the diagnostics or parsed lines beside the packet: %s", jsonOf(t, res))
			}
		})
	}
	t.Run("raw and absent keep the tool's text", func(t *testing.T) {
		for _, in := range []map[string]any{nil, {"packet": "raw"}} {
			s := shapedOf(t, vet(t, reg, in))
			if s.Packet != nil || s.RawOmitted || !strings.Contains(s.Stderr, loc) {
				t.Errorf("%v: %+v", in, s)
			}
		}
	})
	t.Run("the spec's default", func(t *testing.T) {
		reg := goRegistry(t, root, "packet: compact\n")
		if s := shapedOf(t, vet(t, reg, nil)); s.Packet == nil || s.Packet.Mode != "compact" || !s.RawOmitted {
			t.Errorf("default: %+v", s)
		}
		if s := shapedOf(t, vet(t, reg, map[string]any{"packet": "raw"})); s.Packet != nil || s.Stderr == "" {
			t.Errorf("raw over the default: %+v", s)
		}
	})
}

// A failure no parser understood keeps the text that explains it, even
// when a packet was asked for.
func TestPacketKeepsUnparsedFailure(t *testing.T) {
	root := t.TempDir() // no go.mod: go vet fails before vetting anything
	reg := goRegistry(t, root, "")
	res, err := reg.Call(context.Background(), "go.vet", registry.Call{WorkspaceCode: true, Input: map[string]any{"packet": "compact"}})
	if err != nil {
		t.Fatal(err)
	}
	s := shapedOf(t, res)
	if res.OK || len(res.Diagnostics) != 0 || s.RawOmitted || !strings.Contains(s.Stderr, "main module") {
		t.Errorf("result = %s", jsonOf(t, res))
	}
	if s.Packet == nil || len(s.Packet.Items) != 0 {
		t.Errorf("packet = %+v", s.Packet)
	}
}

func TestPacketRefused(t *testing.T) {
	root := vetFixture(t)
	reg := goRegistry(t, root, "")
	tests := []struct {
		name, tool string
		input      map[string]any
	}{
		{"unknown mode", "go.vet", map[string]any{"packet": "evil"}},
		{"empty mode", "go.vet", map[string]any{"packet": ""}},
		{"case", "go.vet", map[string]any{"packet": "Compact"}},
		{"not a string", "go.vet", map[string]any{"packet": 1}},
		{"a list", "go.vet", map[string]any{"packet": []any{"compact"}}},
		{"a tool without diagnostics parsers", "demo.args", map[string]any{"path": "src", "packet": "compact"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := reg.Call(context.Background(), tt.tool, registry.Call{WorkspaceCode: true, Input: tt.input})
			var fe *failure.Error
			if !errors.As(err, &fe) || fe.Code != failure.InvalidInput || fe.Field != "packet" {
				t.Errorf("err = %v, want invalid_input naming packet", err)
			}
		})
	}
	// The handler refuses what the schema would, for callers that skip
	// the registry.
	tool, err := reg.Tool("go.vet")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []any{"evil", "", 3.0, true} {
		err := tool.Handler.(registry.InputValidator).ValidateInput(map[string]any{"packet": v})
		var fe *failure.Error
		if !errors.As(err, &fe) || fe.Code != failure.InvalidInput || fe.Field != "packet" {
			t.Errorf("%v: err = %v", v, err)
		}
	}
}

func TestPacketSchemas(t *testing.T) {
	reg := goRegistry(t, t.TempDir(), "")
	for id, want := range map[string]bool{"go.vet": true, "go.test": true, "go.build": true, "demo.build": true, "demo.args": false, "demo.format": false} {
		tool, err := reg.Tool(id)
		if err != nil {
			t.Fatal(err)
		}
		in, hasIn := tool.InputSchema.Properties[InputPacket]
		_, hasOut := tool.OutputSchema.Properties[keyPacket]
		if hasIn != want || hasOut != want {
			t.Errorf("%s: packet input %v, output %v; want %v", id, hasIn, hasOut, want)
		}
		if hasIn && len(in.Enum) != 3 {
			t.Errorf("%s: enum %v", id, in.Enum)
		}
	}
}
