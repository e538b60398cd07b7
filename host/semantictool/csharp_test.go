package semantictool_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/internal/lsptest/roslyntest"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// TestCSharpThroughPlugin runs the shipped csharp.yaml end to end: the host
// starts the built-in plugin, which launches "roslyn-language-server" with
// the spec's arguments, opens the solution, waits for
// projectInitializationComplete and answers. The server is the scripted
// Roslyn peer (no .NET here), installed on PATH under the real name.
func TestCSharpThroughPlugin(t *testing.T) {
	bin := t.TempDir()
	if err := os.Link(roslyntest.Build(t), filepath.Join(bin, "roslyn-language-server")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("FAKEROSLYN_FAIL_30099", "2") // Roslyn's non-fatal failures are retried
	h := newHost(t, roslyntest.Shapes())
	ctx := context.Background()

	call := func(id string, input map[string]any) (json.RawMessage, error) {
		res, err := h.Registry.Call(ctx, id, registry.Call{Input: input})
		if err != nil {
			return nil, err
		}
		return res.Data, nil
	}

	data, err := call("csharp.find_implementations", map[string]any{"symbol": "IShape", "kind": "interface"})
	if err != nil {
		t.Fatal(err)
	}
	var impls struct {
		Implementations []struct {
			Name string
			File string
			Line int
		}
	}
	if err := json.Unmarshal(data, &impls); err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, i := range impls.Implementations {
		files = append(files, i.File)
	}
	sort.Strings(files)
	if len(files) != 2 || files[0] != "src/Shapes/Circle.cs" || files[1] != "src/Shapes/Square.cs" {
		t.Errorf("implementations of IShape = %+v", impls.Implementations)
	}

	data, err = call("csharp.diagnostics", map[string]any{"file": "src/Shapes.App/Broken.cs"})
	if err != nil {
		t.Fatal(err)
	}
	var diags struct {
		Diagnostics []struct {
			Line, Column int
			Code         string
		}
	}
	if err := json.Unmarshal(data, &diags); err != nil {
		t.Fatal(err)
	}
	if len(diags.Diagnostics) != 1 || diags.Diagnostics[0].Code != "CS1002" || diags.Diagnostics[0].Line != 7 {
		t.Errorf("pull diagnostics = %+v", diags.Diagnostics)
	}

	// Type hierarchy exists only in 2026+ Roslyn builds; this one lacks it.
	_, err = call("csharp.type_hierarchy", map[string]any{"symbol": "IShape"})
	if failure.CodeOf(err) != failure.Unsupported {
		t.Errorf("type_hierarchy on a server without it: err = %v, want unsupported_by_server", err)
	}

	// Project structure comes from parsing the solution in Go.
	data, err = call("csharp.list_projects", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	var ws struct{ Projects []struct{ Name string } }
	if err := json.Unmarshal(data, &ws); err != nil {
		t.Fatal(err)
	}
	if len(ws.Projects) != 2 {
		t.Errorf("projects = %+v", ws.Projects)
	}
}

func TestCSharpServerMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // neither roslyn-language-server nor csharp-ls
	h := newHost(t, roslyntest.Shapes())
	_, err := h.Registry.Call(context.Background(), "csharp.find_symbol", registry.Call{Input: map[string]any{"query": "IShape"}})
	if failure.CodeOf(err) != failure.Precondition {
		t.Errorf("err = %v, want precondition_failed naming the missing server", err)
	}
}

// TestCSharpLSThroughPlugin runs the shipped csharp.yaml with only csharp-ls
// installed: the plugin picks the second server of semantic.servers and
// talks to it in the csharp-ls dialect (the scripted peer installed as
// csharp-ls behaves like csharp-ls, and ignores Roslyn's notifications).
func TestCSharpLSThroughPlugin(t *testing.T) {
	t.Setenv("PATH", roslyntest.Install(t, "csharp-ls")+string(os.PathListSeparator)+os.Getenv("PATH"))
	h := newHost(t, roslyntest.Shapes())
	res, err := h.Registry.Call(context.Background(), "csharp.find_implementations", registry.Call{Input: map[string]any{"symbol": "IShape", "kind": "interface"}})
	if err != nil {
		t.Fatal(err)
	}
	var impls struct{ Implementations []struct{ File string } }
	if err := json.Unmarshal(res.Data, &impls); err != nil {
		t.Fatal(err)
	}
	if len(impls.Implementations) != 2 {
		t.Errorf("implementations of IShape through csharp-ls = %+v", impls.Implementations)
	}
}
