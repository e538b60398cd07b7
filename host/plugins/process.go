package plugins

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"syscall"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin/runner"

	"github.com/langhost/langhost/internal/procgroup"
	"github.com/langhost/langhost/plugins/pluginapi"
)

// process runs a plugin for go-plugin (its runner.Runner) so that the
// plugin cannot outlive the host:
//
//   - the plugin leads its own process group and carries a procgroup mark,
//     which its language servers inherit; killing the group kills them too;
//   - its stdin is a pipe the host never writes to and holds open for as
//     long as it lives: the plugin takes end of file as the host's death,
//     however the host died (pluginapi.HostPipeEnv);
//   - on Linux the kernel also sends the plugin SIGTERM when the host dies,
//     so it can stop its language servers and exit (SIGKILL would leave
//     their helpers behind).
type process struct {
	cmd    *exec.Cmd
	group  *procgroup.Group
	stdout io.ReadCloser
	stderr io.ReadCloser
	pipe   *os.File // the plugin's stdin; closed once the plugin started
	host   *os.File // our end of the pipe, kept open while the plugin lives

	closeOnce sync.Once
}

var _ runner.Runner = (*process)(nil)

// newProcess prepares path with args; env is go-plugin's (the host's
// environment and the handshake) followed by ours, which wins.
func newProcess(path string, args, env []string) (*process, error) {
	cmd := exec.Command(path, args...)
	cmd.Env = append(env, pluginapi.HostPipeEnv+"=stdin")
	pipe, host, err := os.Pipe() // close-on-exec: no other child inherits our end
	if err != nil {
		return nil, fmt.Errorf("create the plugin's stdin pipe: %w", err)
	}
	cmd.Stdin = pipe
	p := &process{cmd: cmd, group: procgroup.New(cmd, syscall.SIGTERM), pipe: pipe, host: host}
	// The manager kills the plugin's whole tree, language servers
	// included, whenever the plugin dies.
	p.group.Supervised()
	if p.stdout, err = cmd.StdoutPipe(); err == nil {
		p.stderr, err = cmd.StderrPipe()
	}
	if err != nil {
		p.closePipe()
		return nil, err
	}
	return p, nil
}

// Start implements runner.Runner.
func (p *process) Start(context.Context) error {
	err := p.group.Start()
	p.pipe.Close()
	if err != nil {
		p.closePipe()
	}
	return err
}

// Wait implements runner.Runner.
func (p *process) Wait(context.Context) error {
	err := p.cmd.Wait()
	p.closePipe()
	return err
}

// Kill implements runner.Runner: it kills the plugin with its language
// servers and their helpers.
func (p *process) Kill(context.Context) error { return p.group.Kill() }

func (p *process) closePipe() {
	p.closeOnce.Do(func() {
		p.pipe.Close()
		p.host.Close()
	})
}

// Stdout implements runner.Runner.
func (p *process) Stdout() io.ReadCloser { return p.stdout }

// Stderr implements runner.Runner.
func (p *process) Stderr() io.ReadCloser { return p.stderr }

// Name implements runner.Runner.
func (p *process) Name() string { return p.cmd.Path }

// ID implements runner.Runner: the process id, "" before Start.
func (p *process) ID() string {
	if pid := p.group.Pid(); pid > 0 {
		return strconv.Itoa(pid)
	}
	return ""
}

// Diagnose implements runner.Runner.
func (p *process) Diagnose(context.Context) string {
	return "the plugin process ended or did not complete the go-plugin handshake: " +
		"is " + p.cmd.Path + " a langhost plugin built for this machine?"
}

// PluginToHost implements runner.AddrTranslator: host and plugin share
// the network and file system.
func (p *process) PluginToHost(network, addr string) (string, string, error) {
	return network, addr, nil
}

// HostToPlugin implements runner.AddrTranslator.
func (p *process) HostToPlugin(network, addr string) (string, string, error) {
	return network, addr, nil
}

// runnerFunc is the plugin.ClientConfig.RunnerFunc that starts launch as
// a process and stores it in *proc for the manager.
func runnerFunc(path string, launch Launch, level hclog.Level, proc **process) func(hclog.Logger, *exec.Cmd, string) (runner.Runner, error) {
	return func(_ hclog.Logger, spec *exec.Cmd, _ string) (runner.Runner, error) {
		env := slices.Concat(spec.Env, []string{pluginapi.LogLevelEnv + "=" + level.String()}, launch.Env)
		p, err := newProcess(path, launch.Args, env)
		if err != nil {
			return nil, err
		}
		*proc = p
		return p, nil
	}
}
