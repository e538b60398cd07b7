package mcpserver

import (
	"context"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// inflight tracks the requests a transport is handling, so that stopping
// the transport ends them first: a canceled tool run kills its process
// group, where an abandoned one would be left running when the host exits.
type inflight struct {
	mu      sync.Mutex
	closing bool
	wg      sync.WaitGroup
}

// bindRequests makes every request on srv end when ctx ends. The SDK's
// own shutdown waits for requests in flight without canceling them, so
// without this a signal would wait for a tool that may never finish.
func bindRequests(ctx context.Context, srv *mcp.Server) *inflight {
	f := &inflight{}
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(hctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			hctx, cancel := context.WithCancel(hctx)
			defer cancel()
			defer context.AfterFunc(ctx, cancel)()
			if f.add() {
				defer f.wg.Done()
			}
			return next(hctx, method, req)
		}
	})
	return f
}

// add counts a new request unless the transport is stopping; a request
// arriving then already has a canceled context and starts nothing.
func (f *inflight) add() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closing {
		return false
	}
	f.wg.Add(1)
	return true
}

// wait waits up to grace for the requests in flight, which ctx's end has
// canceled, to return. It reports whether they all did.
func (f *inflight) wait(grace time.Duration) bool {
	f.mu.Lock()
	f.closing = true
	f.mu.Unlock()
	done := make(chan struct{})
	go func() {
		f.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(grace):
		return false
	}
}
