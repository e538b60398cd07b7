package semantictool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/config"
	"github.com/langhost/langhost/host/plugins"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/semantictool"
	"github.com/langhost/langhost/internal/lsptest/roslyntest"
	"github.com/langhost/langhost/plugins/builtin"
	"github.com/langhost/langhost/plugins/builtin/builtintest"
	"github.com/langhost/langhost/plugins/lsp"
	"github.com/langhost/langhost/plugins/pluginapi"
)

func TestMain(m *testing.M) { builtintest.Main(m) }

// newHost loads the embedded specs over a copy of fixture as workspace.
func newHost(t testing.TB, fixture string) *host.Host {
	t.Helper()
	dir := t.TempDir()
	copyTree(t, fixture, dir)
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

type reference struct {
	File             string
	Line, Column     int
	ContainingMember string `json:"containing_member"`
}

func findReferences(t testing.TB, h *host.Host, input map[string]any) ([]reference, error) {
	res, err := h.Registry.Call(context.Background(), "go.find_references", registry.Call{WorkspaceCode: true, Input: input})
	if err != nil {
		return nil, err
	}
	var out struct{ References []reference }
	if err := json.Unmarshal(res.Data, &out); err != nil {
		t.Fatal(err)
	}
	return out.References, nil
}

// BenchmarkFindReferencesOverhead compares a warm go.find_references through
// host -> plugin (gRPC) -> gopls with the same LSP request sent directly to
// a gopls of our own (target: under 2 ms added at the median).
func BenchmarkFindReferencesOverhead(b *testing.B) {
	builtintest.RequireTools(b, "gopls")
	h := newHost(b, "../../plugins/semantic/testdata/gomod")
	root := h.Workspace.Dir()
	input := map[string]any{"file": "calc/calc.go", "line": 11, "column": 6}
	if _, err := findReferences(b, h, input); err != nil { // start and warm up
		b.Fatal(err)
	}
	direct := startGopls(b, root)
	params := map[string]any{
		"textDocument": lsp.TextDocumentIdentifier{URI: lsp.URIFromPath(filepath.Join(root, "calc", "calc.go"))},
		"position":     lsp.Position{Line: 10, Character: 5},
		"context":      map[string]bool{"includeDeclaration": false},
	}
	ctx := context.Background()
	var hosted, raw []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := findReferences(b, h, input); err != nil {
			b.Fatal(err)
		}
		hosted = append(hosted, time.Since(start))
		start = time.Now()
		var locs []lsp.Location
		if err := direct.Call(ctx, "textDocument/references", params, &locs); err != nil || len(locs) != 2 {
			b.Fatal(err, locs)
		}
		raw = append(raw, time.Since(start))
	}
	mh, mr := median(hosted), median(raw)
	b.ReportMetric(ms(mh), "ms/hosted")
	b.ReportMetric(ms(mr), "ms/direct")
	b.ReportMetric(ms(mh-mr), "ms/overhead")
}

func startGopls(b *testing.B, root string) *lsp.Server {
	s, err := lsp.Start([]string{"gopls"}, root, os.Environ(), lsp.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Call(ctx, "shutdown", nil, nil)
		_ = s.Notify(ctx, "exit", nil)
		_ = s.Close(ctx)
	})
	ctx := context.Background()
	init := map[string]any{
		"processId":        os.Getpid(),
		"rootUri":          lsp.URIFromPath(root),
		"capabilities":     map[string]any{},
		"workspaceFolders": []map[string]any{{"uri": lsp.URIFromPath(root), "name": "ws"}},
	}
	if err := s.Call(ctx, "initialize", init, nil); err != nil {
		b.Fatal(err)
	}
	if err := s.Notify(ctx, "initialized", map[string]any{}); err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(root, "calc", "calc.go")
	text, _ := os.ReadFile(file)
	open := map[string]any{"textDocument": map[string]any{"uri": lsp.URIFromPath(file), "languageId": "go", "version": 1, "text": string(text)}}
	if err := s.Notify(ctx, "textDocument/didOpen", open); err != nil {
		b.Fatal(err)
	}
	return s
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// BenchmarkPluginStartToReady measures a cold start of the built-in agent
// plugin: process start, go-plugin handshake with AutoMTLS, Open (which
// starts a language server that is ready at once: the scripted fake, in the
// standard dialect) and one call. The language server's own indexing is
// thereby excluded (target: under 150 ms). It also reports the plugin
// process's resident memory, without the language server (target: under
// 40 MB).
func BenchmarkPluginStartToReady(b *testing.B) {
	fake := roslyntest.Build(b)
	root := b.TempDir()
	copyTree(b, roslyntest.Shapes(), root)
	cfg, _ := json.Marshal(map[string]any{
		"command":    fake,
		"args":       []string{"--stdio", "--logLevel", "Information", "--extensionLogDirectory", b.TempDir()},
		"readyQuiet": "1ms",
	})
	logger := hclog.NewNullLogger()
	var rss float64
	n := 0
	for b.Loop() {
		m := plugins.NewManager(logger)
		launch, err := plugins.Builtin(semantictool.BuiltinPlugin)
		if err != nil {
			b.Fatal(err)
		}
		p, err := m.Get(context.Background(), plugins.Spec{Launch: launch,
			Open: pluginapi.OpenRequest{Root: root, Language: "csharp", Config: cfg}}, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Status(context.Background()); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		rss += rssMB(b, p.PID())
		n++
		if err := m.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(rss/float64(n), "plugin-RSS-MB")
}

func rssMB(b *testing.B, pid int) float64 {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return float64(kb) / 1024
		}
	}
	b.Fatalf("no VmRSS for %d", pid)
	return 0
}
