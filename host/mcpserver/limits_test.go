package mcpserver_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/langhost/langhost/host/mcpserver"
	"github.com/langhost/langhost/host/registry"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// gauge is a tool handler that counts the calls running in it and keeps
// the highest count; each call waits for a release.
type gauge struct {
	running, peak atomic.Int64
	release       chan struct{}
}

func (g *gauge) Call(ctx context.Context, _ registry.Call) (*registry.Result, error) {
	n := g.running.Add(1)
	defer g.running.Add(-1)
	for {
		p := g.peak.Load()
		if n <= p || g.peak.CompareAndSwap(p, n) {
			break
		}
	}
	select {
	case <-g.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return &registry.Result{OK: true}, nil
}

// gaugeServer serves the demo host with tool demo.hold running on a gauge.
func gaugeServer(t *testing.T, opts mcpserver.Options) (*gauge, *mcp.ClientSession) {
	t.Helper()
	h := newHost(t)
	g := &gauge{release: make(chan struct{})}
	if err := h.Registry.Add(&registry.Tool{ID: "demo.hold", Language: "demo", Kind: registry.KindSemantic, Handler: g}); err != nil {
		t.Fatal(err)
	}
	opts.Languages = []string{"demo"}
	srv, err := mcpserver.New(h, opts)
	if err != nil {
		t.Fatal(err)
	}
	return g, connect(t, srv)
}

// TestConcurrentCallsCapped: forty calls at once never run more than
// MaxConcurrentCalls at a time, and all of them finish.
func TestConcurrentCallsCapped(t *testing.T) {
	const limit, calls = 3, 40
	g, cs := gaugeServer(t, mcpserver.Options{MaxConcurrentCalls: limit, CallWait: 5 * time.Minute})
	var wg sync.WaitGroup
	for range calls {
		wg.Go(func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "demo_hold"})
			if err != nil || res.IsError {
				t.Errorf("call failed: %v %v", err, res)
			}
		})
	}
	waitFor(t, "the first calls to start", func() bool { return g.running.Load() == limit })
	for range calls {
		g.release <- struct{}{}
	}
	wg.Wait()
	if p := g.peak.Load(); p != limit {
		t.Errorf("peak of calls running at once = %d, want %d", p, limit)
	}
}

// TestCallBusy: a call that finds every slot taken and waits its bound
// fails with a timeout result naming the limit; the server still serves.
func TestCallBusy(t *testing.T) {
	g, cs := gaugeServer(t, mcpserver.Options{MaxConcurrentCalls: 1, CallWait: 50 * time.Millisecond})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "demo_hold"})
	}()
	waitFor(t, "the first call to start", func() bool { return g.running.Load() == 1 })
	res, st := call(t, cs, "demo_echo", map[string]any{"text": "x"})
	code, _, msg := errorOf(st)
	if !res.IsError || code != "timeout" || !strings.Contains(msg, "server busy") || !strings.Contains(msg, "mcp.max_concurrent") {
		t.Errorf("isError=%v code=%q message=%q", res.IsError, code, msg)
	}
	g.release <- struct{}{}
	<-done
	if res, _ := call(t, cs, "demo_echo", map[string]any{"text": "x"}); res.IsError {
		t.Errorf("call after the slot freed: %s", text(res))
	}
}

// waitFor polls cond until it holds, failing the test after a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
