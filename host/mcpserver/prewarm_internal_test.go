package mcpserver

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/detect"
	"github.com/langhost/langhost/host/plugins"
	"github.com/langhost/langhost/host/registry"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPrimary checks which served languages are warmed: those the
// workspace is a project of, else every detected one.
func TestPrimary(t *testing.T) {
	tests := []struct {
		name     string
		detected []detect.Language
		served   []string
		want     []string
	}{
		{"go module with C and JavaScript fixtures",
			[]detect.Language{{ID: "c"}, {ID: "go", Project: true}, {ID: "javascript"}},
			[]string{"c", "go", "javascript"}, []string{"go"}},
		{"monorepo",
			[]detect.Language{{ID: "go", Project: true}, {ID: "python"}, {ID: "typescript", Project: true}},
			[]string{"go", "python", "typescript"}, []string{"go", "typescript"}},
		{"no project file",
			[]detect.Language{{ID: "python"}, {ID: "c"}},
			[]string{"c", "python"}, []string{"c", "python"}},
		{"served but not detected",
			[]detect.Language{{ID: "go", Project: true}},
			[]string{"go", "rust"}, []string{"go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := &Server{ctx: context.Background(), log: hclog.NewNullLogger()}
			g := &generation{server: &server{detected: tt.detected}}
			if got := srv.primary(g, slices.Clone(tt.served)); !slices.Equal(got, tt.want) {
				t.Errorf("warmed %v, want %v", got, tt.want)
			}
		})
	}
}

// warmCounter is a tool handler that counts its warms.
type warmCounter struct{ warmed chan string }

func (w warmCounter) Call(context.Context, registry.Call) (*registry.Result, error) {
	return &registry.Result{OK: true}, nil
}

func (w warmCounter) Warm(context.Context) error {
	w.warmed <- "warmed"
	return nil
}

// TestPrewarmWaitsForFirstList: the first warm starts once a tools/list
// has been answered, not before (starting a plugin would compete with the
// listing for the CPU), and without one after the delay; Close stops a
// warm still waiting.
func TestPrewarmWaitsForFirstList(t *testing.T) {
	newSrv := func(delay time.Duration) (*Server, chan string) {
		w := warmCounter{warmed: make(chan string, 1)}
		srv := &Server{log: hclog.NewNullLogger(), listed: make(chan struct{}), prewarmDelay: delay,
			opts: Options{Languages: []string{"x"}}}
		srv.ctx, srv.cancel = context.WithCancel(context.Background())
		h := &host.Host{Plugins: plugins.NewManager(nil, plugins.WithDescribeCache(""))}
		srv.gen = &generation{server: &server{h: h, tools: []*registry.Tool{{ID: "x.op", Language: "x", Handler: w}}}}
		return srv, w.warmed
	}
	list := func(srv *Server) {
		next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return &mcp.ListToolsResult{}, nil }
		if _, err := srv.noteListed(next)(context.Background(), "tools/list", nil); err != nil {
			t.Fatal(err)
		}
	}

	srv, warmed := newSrv(time.Hour)
	srv.Prewarm()
	initialize := func(context.Context, string, mcp.Request) (mcp.Result, error) { return &mcp.InitializeResult{}, nil }
	if _, err := srv.noteListed(initialize)(context.Background(), "initialize", nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-warmed:
		t.Fatal("warmed before any tools/list")
	default:
	}
	list(srv)
	<-warmed  // the test times out if it never comes
	list(srv) // a second listing changes nothing
	srv.Close()

	// A client that never lists: the warm starts after the delay.
	srv, warmed = newSrv(time.Millisecond)
	srv.Prewarm()
	<-warmed
	srv.Close()

	// Closed while waiting: no warm, and Close returns.
	srv, warmed = newSrv(time.Hour)
	srv.Prewarm()
	srv.Close()
	select {
	case <-warmed:
		t.Error("warmed after Close")
	default:
	}
}
