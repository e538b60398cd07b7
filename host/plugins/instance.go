package plugins

import (
	"context"
	"errors"
	"os/exec"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/langhost/langhost/plugins/pluginapi"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// instance is one running plugin process.
type instance struct {
	name   string
	client *plugin.Client
	proc   *process
	agent  *pluginapi.RemoteAgent
	pid    int
	desc   *pluginapi.Description

	killOnce sync.Once
	reapOnce sync.Once
	reason   string // why the process ended; set by reap
}

// start launches a plugin process, completes the go-plugin handshake,
// describes the agent and opens the workspace.
func (m *Manager) start(ctx context.Context, launch Launch, open pluginapi.OpenRequest, progress pluginapi.ProgressFunc) (*instance, error) {
	// The manager's context ends when Close is called, so a long Open
	// does not hold up Close.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(m.ctx, cancel)()

	path, err := exec.LookPath(launch.Path)
	if err != nil {
		return nil, &failure.Error{Code: failure.Precondition, Field: "launch.path",
			Message: "plugin " + launch.Name + " executable " + launch.Path + " not found", Err: err}
	}
	inst, err := m.launch(launch, path)
	if err != nil {
		return nil, err
	}
	if inst.desc, err = inst.agent.Describe(ctx); err != nil {
		return nil, inst.startFailed("describe", err)
	}
	if err := inst.agent.Open(ctx, open, progress); err != nil {
		return nil, inst.startFailed("open "+open.Language+" workspace "+open.Root, err)
	}
	m.logger.Named(launch.Name).Debug("plugin ready", "pid", inst.pid, "agent", inst.desc.Name, "version", inst.desc.Version)
	return inst, nil
}

// launch starts the plugin process at path and completes the go-plugin
// handshake.
func (m *Manager) launch(launch Launch, path string) (*instance, error) {
	var proc *process // set by the runner function when the client starts
	logger := m.logger.Named(launch.Name)
	stdio := logger.StandardWriter(&hclog.StandardLoggerOptions{ForceLevel: hclog.Debug})
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  pluginapi.Handshake,
		Plugins:          pluginapi.PluginSet(nil),
		RunnerFunc:       runnerFunc(path, launch, m.logger.GetLevel(), &proc),
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         true,
		Logger:           logger,
		StartTimeout:     m.cfg.startTimeout,
		GRPCDialOptions:  pluginapi.GRPCDialOptions(),
		SyncStdout:       stdio,
		SyncStderr:       stdio,
	})
	inst := &instance{name: launch.Name, client: client}

	// The handshake is bounded by StartTimeout, not ctx: go-plugin holds a
	// lock during it that Kill needs.
	rpc, err := client.Client()
	inst.proc = proc
	if proc != nil {
		inst.pid = proc.group.Pid()
	}
	if err != nil {
		inst.kill()
		return nil, failure.Wrap(failure.Internal, err, "start plugin %s (%s)", launch.Name, path)
	}
	raw, err := rpc.Dispense(pluginapi.PluginName)
	if err != nil {
		inst.kill()
		return nil, failure.Wrap(failure.Internal, err, "plugin %s does not serve %s", launch.Name, pluginapi.PluginName)
	}
	agent, ok := raw.(*pluginapi.RemoteAgent)
	if !ok {
		inst.kill()
		return nil, failure.New(failure.Internal, "plugin %s dispensed %T, want *pluginapi.RemoteAgent", launch.Name, raw)
	}
	inst.agent = agent
	return inst, nil
}

// startFailed stops a half-started plugin and explains why it failed,
// keeping the agent's failure class.
func (i *instance) startFailed(step string, err error) error {
	var cerr *pluginapi.ConnectionError
	if errors.As(err, &cerr) {
		return i.exitError(err)
	}
	i.kill()
	return failure.Wrap(failure.CodeOf(err), err, "plugin %s: %s", i.name, step)
}

// exited reports whether go-plugin has seen the process exit.
func (i *instance) exited() bool {
	select {
	case <-i.agent.Done():
		return true
	default:
		return false
	}
}

// exitGrace is how long a broken connection waits for the process exit
// to be observed before the manager kills the process itself.
const exitGrace = time.Second

// reap makes sure a plugin whose connection broke is gone, with its
// language servers, and returns why it ended.
func (i *instance) reap() string {
	i.reapOnce.Do(func() {
		select {
		case <-i.agent.Done():
		case <-time.After(exitGrace):
		}
		exited := i.exited()
		i.killTree()
		i.kill()
		switch {
		case exited && i.proc.cmd.ProcessState != nil:
			// Safe to read: go-plugin closes Done after cmd.Wait returned.
			i.reason = i.proc.cmd.ProcessState.String()
		case exited:
			i.reason = "process ended"
		default:
			i.reason = "connection lost; process killed"
		}
	})
	return i.reason
}

// exitError reaps the plugin and reports err, a broken connection, as the
// clear internal failure the caller sees.
func (i *instance) exitError(err error) error {
	return failure.Wrap(failure.Internal, err, "plugin %s exited: %s", i.name, i.reap())
}

// killGrace bounds go-plugin's Kill, which waits for the plugin's output
// pipes to close; a language server holding them open would block it.
const killGrace = 5 * time.Second

// kill stops the process and whatever is left of its process tree.
func (i *instance) kill() {
	i.killOnce.Do(func() {
		done := make(chan struct{})
		go func() {
			i.client.Kill()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(killGrace):
			i.killTree()
			<-done
		}
		// Language servers that ignored Shutdown.
		i.killTree()
	})
}

// killTree kills the plugin's process group and every process that
// carries its mark: its language servers, in their own groups, and their
// helpers.
func (i *instance) killTree() {
	if i.proc != nil {
		_ = i.proc.group.Kill()
	}
}

// stop shuts the agent down (it stops its language servers) within
// timeout, then kills the process.
func (i *instance) stop(timeout time.Duration) error {
	var err error
	if !i.exited() {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		err = i.agent.Shutdown(ctx)
		cancel()
		var cerr *pluginapi.ConnectionError
		if errors.As(err, &cerr) {
			err = nil // already gone: nothing left to shut down
		}
	}
	if err != nil {
		// Not worth go-plugin's graceful close, which waits for a plugin
		// that did not even stop in time.
		i.killTree()
	}
	i.kill()
	if err != nil {
		return failure.Wrap(failure.CodeOf(err), err, "shut down plugin %s", i.name)
	}
	return nil
}
