package mcpserver

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
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

// DefaultCallWait is how long a tool call beyond Options.MaxConcurrentCalls
// waits for a slot before it fails as busy.
const DefaultCallWait = time.Minute

// DefaultMaxConcurrentCalls is the number of tool calls run at once when
// Options.MaxConcurrentCalls is 0: twice the CPUs, at least 4. Most calls
// are processes that keep a CPU busy.
func DefaultMaxConcurrentCalls() int { return max(4, 2*runtime.NumCPU()) }

// maxWaitingCalls bounds the calls waiting for a slot: one more fails at
// once instead of holding a goroutine and its request.
const maxWaitingCalls = 256

// callLimit is the server-wide cap on tool calls running at once: forty
// calls at once had started eighty processes.
type callLimit struct {
	slots      chan struct{}
	wait       time.Duration
	waiting    atomic.Int64
	maxWaiting int64
}

func newCallLimit(n int, wait time.Duration) *callLimit {
	if n <= 0 {
		n = DefaultMaxConcurrentCalls()
	}
	if wait <= 0 {
		wait = DefaultCallWait
	}
	return &callLimit{slots: make(chan struct{}, n), wait: wait, maxWaiting: maxWaitingCalls}
}

// acquire takes a slot, waiting up to l.wait or until ctx ends; the
// caller calls release.
func (l *callLimit) acquire(ctx context.Context) (release func(), err error) {
	release = func() { <-l.slots }
	select {
	case l.slots <- struct{}{}:
		return release, nil
	default:
	}
	if l.waiting.Add(1) > l.maxWaiting {
		l.waiting.Add(-1)
		return nil, failure.New(failure.Timeout, "server busy: %d tool calls running and %d waiting (mcp.max_concurrent is %d); retry later",
			cap(l.slots), l.maxWaiting, cap(l.slots))
	}
	defer l.waiting.Add(-1)
	timer := time.NewTimer(l.wait)
	defer timer.Stop()
	select {
	case l.slots <- struct{}{}:
		return release, nil
	case <-ctx.Done():
		return nil, failure.Wrap(failure.Canceled, ctx.Err(), "canceled while waiting for one of the %d tool call slots", cap(l.slots))
	case <-timer.C:
		return nil, failure.New(failure.Timeout, "server busy: waited %s for one of the %d tool call slots (mcp.max_concurrent); retry later", l.wait, cap(l.slots))
	}
}

// middleware runs each tools/call in a slot; a call that gets none ends
// with an error result naming the limit.
func (l *callLimit) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		release, err := l.acquire(ctx)
		if err != nil {
			name := ""
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok {
				name = p.Name
			}
			return toolResult(name, nil, err), nil
		}
		defer release()
		return next(ctx, method, req)
	}
}
