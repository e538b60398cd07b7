// Package plugins runs semantic agent plugins for the host: it starts one
// go-plugin process per language and workspace on first use, restarts it
// after a crash, and stops every process when the host closes it.
package plugins

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/langhost/langhost/plugins/pluginapi"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

type config struct {
	startTimeout    time.Duration
	shutdownTimeout time.Duration
	builtins        Builtins
	describeDir     string // "" when descriptions are not cached
}

// Option configures a Manager.
type Option func(*config)

// WithStartTimeout bounds the go-plugin handshake of a new process
// (default 30s). Describe and Open are bounded by the caller's context.
func WithStartTimeout(d time.Duration) Option {
	return func(c *config) { c.startTimeout = d }
}

// WithShutdownTimeout bounds the Shutdown call that lets a plugin stop its
// language servers before the manager kills it (default 3s, so that a host
// asked to stop by a signal is gone within 5 seconds).
func WithShutdownTimeout(d time.Duration) Option {
	return func(c *config) { c.shutdownTimeout = d }
}

// Manager owns plugin processes for the life of the host process. It is
// safe for concurrent use.
type Manager struct {
	logger hclog.Logger
	cfg    config
	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc

	mu      sync.Mutex
	plugins map[Key]*Plugin
	closed  bool

	// described shares descriptions between the languages of one host
	// (see described.go).
	described described
}

// NewManager returns a manager whose plugins log into logger (go-plugin
// forwards each plugin's hclog JSON lines to it). A nil logger discards.
func NewManager(logger hclog.Logger, opts ...Option) *Manager {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	cfg := config{startTimeout: 30 * time.Second, shutdownTimeout: 3 * time.Second, describeDir: DefaultDescribeCache()}
	for _, opt := range opts {
		opt(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Manager{
		logger:  logger,
		cfg:     cfg,
		ctx:     ctx,
		cancel:  cancel,
		plugins: make(map[Key]*Plugin),
	}
}

// Get returns the plugin for spec's language and workspace root, starting
// its process and opening the workspace if it is not running. Open
// progress goes to progress, which may be nil. The first Spec for a key
// wins: a later Get with the same key reuses the running plugin.
func (m *Manager) Get(ctx context.Context, spec Spec, progress pluginapi.ProgressFunc) (*Plugin, error) {
	if err := spec.validate(); err != nil {
		return nil, err
	}
	key := spec.key()
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, errClosed(spec.Launch.Name)
	}
	p := m.plugins[key]
	if p == nil {
		p = &Plugin{m: m, key: key, launch: spec.Launch, open: spec.Open}
		m.plugins[key] = p
	}
	m.mu.Unlock()
	if _, err := p.running(ctx, progress); err != nil {
		return nil, err
	}
	return p, nil
}

// Close stops every plugin: each gets Shutdown (bounded by the shutdown
// timeout) to stop its language servers, then its process group is
// killed. It returns the Shutdown failures; the processes are gone either
// way. Get fails after Close.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	ps := make([]*Plugin, 0, len(m.plugins))
	for _, p := range m.plugins {
		ps = append(ps, p)
	}
	m.mu.Unlock()
	m.cancel()

	errs := make([]error, len(ps))
	var wg sync.WaitGroup
	for i, p := range ps {
		wg.Go(func() { errs[i] = p.close() })
	}
	wg.Wait()
	return errors.Join(errs...)
}

func errClosed(name string) error {
	return failure.New(failure.Internal, "plugin %s: the plugin manager is closed", name)
}

// Plugin is a managed plugin for one language and workspace. It is an
// Agent whose process the manager starts on demand: when the process
// died, the next call starts a new one and opens the workspace again.
// A call that was running when the process died fails with a
// failure.Internal error "plugin <name> exited: ...".
type Plugin struct {
	m      *Manager
	key    Key
	launch Launch

	mu       sync.Mutex
	open     pluginapi.OpenRequest
	inst     *instance // nil when not running
	starting *attempt  // the start in progress, if any
	closed   bool
}

// attempt is one start of the plugin process, shared by every caller
// that needs the plugin while it runs.
type attempt struct {
	done chan struct{} // closed when the start ended
	err  error         // set before done is closed
}

var _ pluginapi.Agent = (*Plugin)(nil)

// Key returns the plugin's language and workspace root.
func (p *Plugin) Key() Key { return p.key }

// PID returns the plugin process id, 0 when no process is running.
func (p *Plugin) PID() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inst == nil || p.inst.exited() {
		return 0
	}
	return p.inst.pid
}

// running returns the live instance, starting one if needed. Concurrent
// callers share one start.
func (p *Plugin) running(ctx context.Context, progress pluginapi.ProgressFunc) (*instance, error) {
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return nil, errClosed(p.launch.Name)
		}
		if inst := p.inst; inst != nil {
			if !inst.exited() {
				p.mu.Unlock()
				return inst, nil
			}
			// Died between calls: clean up and start afresh.
			p.inst = nil
			p.mu.Unlock()
			p.m.logger.Warn("plugin exited; restarting", "plugin", p.launch.Name, "key", p.key.String(), "status", inst.reap())
			continue
		}
		if a := p.starting; a != nil {
			p.mu.Unlock()
			select {
			case <-a.done:
			case <-ctx.Done():
				return nil, ctxError(ctx, p.launch.Name)
			}
			// Share the failure rather than start again at once, unless
			// the failure was the starting caller's own cancellation.
			if a.err != nil && !errors.Is(a.err, context.Canceled) && !errors.Is(a.err, context.DeadlineExceeded) {
				return nil, a.err
			}
			continue
		}
		a := &attempt{done: make(chan struct{})}
		p.starting = a
		open := p.open
		p.mu.Unlock()

		inst, err := p.m.start(ctx, p.launch, open, progress)

		p.mu.Lock()
		p.starting = nil
		a.err = err
		close(a.done)
		closed := p.closed
		if err == nil {
			// When Close ran meanwhile, it waits for this start and then
			// stops p.inst.
			p.inst = inst
		}
		p.mu.Unlock()
		switch {
		case err != nil:
			return nil, err
		case closed:
			return nil, errClosed(p.launch.Name)
		}
		return inst, nil
	}
}

func ctxError(ctx context.Context, name string) error {
	code := failure.Canceled
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		code = failure.Timeout
	}
	return failure.Wrap(code, ctx.Err(), "waiting for plugin %s to start", name)
}

// call runs fn on a live instance. When the connection breaks, the
// instance is discarded; the call is repeated once on a new process if it
// is idempotent or never reached the plugin, and fails otherwise.
func (p *Plugin) call(ctx context.Context, progress pluginapi.ProgressFunc, idempotent bool, fn func(*instance) error) error {
	for attempt := 0; ; attempt++ {
		inst, err := p.running(ctx, progress)
		if err != nil {
			return err
		}
		err = fn(inst)
		var cerr *pluginapi.ConnectionError
		if err == nil || !errors.As(err, &cerr) {
			return err
		}
		p.discard(inst)
		err = inst.exitError(err)
		if attempt == 0 && (idempotent || !cerr.Delivered) {
			p.m.logger.Warn("plugin connection lost; retrying on a new process",
				"plugin", p.launch.Name, "key", p.key.String(), "method", cerr.Method, "error", err)
			continue
		}
		return err
	}
}

// discard forgets inst if it is still the current instance.
func (p *Plugin) discard(inst *instance) {
	p.mu.Lock()
	if p.inst == inst {
		p.inst = nil
	}
	p.mu.Unlock()
}

// Describe implements pluginapi.Agent. It returns the description the
// plugin gave when its process started.
func (p *Plugin) Describe(ctx context.Context) (*pluginapi.Description, error) {
	inst, err := p.running(ctx, nil)
	if err != nil {
		return nil, err
	}
	return inst.desc, nil
}

// Open implements pluginapi.Agent: it opens the workspace again (for
// example with a changed configuration) and remembers req for restarts.
// req must name the plugin's language and root.
func (p *Plugin) Open(ctx context.Context, req pluginapi.OpenRequest, progress pluginapi.ProgressFunc) error {
	if req.Language != p.key.Language || req.Root != p.key.Root {
		return &failure.Error{Code: failure.InvalidInput, Field: "root",
			Message: "plugin " + p.key.String() + " cannot open " + Key{req.Language, req.Root}.String()}
	}
	p.mu.Lock()
	p.open = req
	p.mu.Unlock()
	return p.call(ctx, progress, true, func(inst *instance) error {
		return inst.agent.Open(ctx, req, progress)
	})
}

// Invoke implements pluginapi.Agent. Progress from the operation, and from
// reopening the workspace when the plugin had to be restarted, goes to
// progress.
func (p *Plugin) Invoke(ctx context.Context, req pluginapi.InvokeRequest, progress pluginapi.ProgressFunc) (json.RawMessage, error) {
	var out json.RawMessage
	err := p.call(ctx, progress, false, func(inst *instance) error {
		var err error
		out, err = inst.agent.Invoke(ctx, req, progress)
		return err
	})
	return out, err
}

// Status implements pluginapi.Agent.
func (p *Plugin) Status(ctx context.Context) (*pluginapi.Status, error) {
	var st *pluginapi.Status
	err := p.call(ctx, nil, true, func(inst *instance) error {
		var err error
		st, err = inst.agent.Status(ctx)
		return err
	})
	return st, err
}

// Shutdown implements pluginapi.Agent: it stops the plugin process (after
// letting it stop its language servers). A later call starts it again.
func (p *Plugin) Shutdown(ctx context.Context) error {
	p.mu.Lock()
	inst := p.inst
	p.inst = nil
	p.mu.Unlock()
	if inst == nil {
		return nil
	}
	timeout := p.m.cfg.shutdownTimeout
	if deadline, ok := ctx.Deadline(); ok {
		timeout = min(timeout, time.Until(deadline))
	}
	return inst.stop(timeout)
}

// close stops the plugin for good.
func (p *Plugin) close() error {
	p.mu.Lock()
	p.closed = true
	a := p.starting
	p.mu.Unlock()
	if a != nil {
		<-a.done // let the start finish; its instance is stopped below
	}
	p.mu.Lock()
	inst := p.inst
	p.inst = nil
	p.mu.Unlock()
	if inst == nil {
		return nil
	}
	return inst.stop(p.m.cfg.shutdownTimeout)
}
