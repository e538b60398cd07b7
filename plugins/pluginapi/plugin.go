package pluginapi

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
	pb "github.com/langhost/langhost/plugins/proto"
)

// Handshake is shared by the host and every plugin. go-plugin refuses to
// connect when the protocol version or the cookie differ, and a plugin
// binary started by hand (without the cookie) explains itself and exits.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  1,
	MagicCookieKey:   "LANGHOST_PLUGIN_MAGIC_COOKIE",
	MagicCookieValue: "4f1e5c2b-langhost-semantic-agent",
}

// PluginName is the name under which a plugin serves its Agent.
const PluginName = "semantic_agent"

// LogLevelEnv names the environment variable through which the host passes
// its log level to the plugins it starts (read by NewLogger).
const LogLevelEnv = "LANGHOST_PLUGIN_LOG_LEVEL"

// maxMessageSize bounds one gRPC message. Operation outputs such as a
// large file's source or thousands of references exceed gRPC's 4 MB
// default.
const maxMessageSize = 64 << 20

// GRPCPlugin connects go-plugin to the SemanticAgent service. In the plugin
// process Impl is the agent being served; in the host Impl is unused and
// Dispense returns a *RemoteAgent.
type GRPCPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	Impl Agent
}

var _ plugin.GRPCPlugin = (*GRPCPlugin)(nil)

// GRPCServer implements plugin.GRPCPlugin.
func (p *GRPCPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	if p.Impl == nil {
		return errors.New("pluginapi: GRPCPlugin.Impl is nil")
	}
	pb.RegisterSemanticAgentServer(s, &agentServer{impl: p.Impl})
	return nil
}

// GRPCClient implements plugin.GRPCPlugin. ctx is cancelled by go-plugin
// when the plugin process exits.
func (p *GRPCPlugin) GRPCClient(ctx context.Context, _ *plugin.GRPCBroker, conn *grpc.ClientConn) (any, error) {
	return NewRemoteAgent(conn, ctx.Done()), nil
}

// PluginSet is the plugin set for plugin.ClientConfig.Plugins (host side,
// agent nil) and plugin.ServeConfig.Plugins (plugin side).
func PluginSet(agent Agent) plugin.PluginSet {
	return plugin.PluginSet{PluginName: &GRPCPlugin{Impl: agent}}
}

// GRPCDialOptions are the dial options the host should pass in
// plugin.ClientConfig.GRPCDialOptions.
func GRPCDialOptions() []grpc.DialOption {
	return []grpc.DialOption{grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMessageSize))}
}

// NewLogger returns the logger a plugin should use: JSON lines on the
// process's stderr, which go-plugin parses and forwards into the host's
// logger. Call it before Serve, which redirects os.Stderr. The level comes
// from LogLevelEnv (set by the host), Info when unset.
func NewLogger(name string) hclog.Logger {
	level := hclog.LevelFromString(os.Getenv(LogLevelEnv))
	if level == hclog.NoLevel {
		level = hclog.Info
	}
	return hclog.New(&hclog.LoggerOptions{
		Name:       name,
		Level:      level,
		Output:     os.Stderr,
		JSONFormat: true,
	})
}

// HostPipeEnv names the environment variable by which the host tells a
// plugin that its standard input is a pipe the host holds open for as long
// as it lives (value "stdin"): end of file means the host is gone, however
// it died, even by SIGKILL.
const HostPipeEnv = "LANGHOST_PLUGIN_HOST_PIPE"

// shutdownTimeout bounds the agent's Shutdown when the plugin stops on
// its own (host gone, a signal, or the server stopped without a Shutdown
// call). It keeps the whole stop within the 5 seconds a supervisor
// typically waits after SIGTERM.
const shutdownTimeout = 4 * time.Second

// Serve serves agent over go-plugin's gRPC protocol and returns when the
// host stops the plugin. It is the whole main of a plugin process:
//
//	pluginapi.Serve(agent, pluginapi.NewLogger("semantic"))
//
// A nil logger means NewLogger("plugin"). After the server stops, Serve
// calls agent.Shutdown once more so a language server never outlives its
// plugin; Shutdown must therefore be safe to call twice. When the host
// process is gone (see HostPipeEnv) or SIGINT or SIGTERM arrives, Serve
// shuts the agent down and exits the process: with status 130
// (interrupted) after a signal, 1 when the host is gone.
func Serve(agent Agent, logger hclog.Logger) {
	if logger == nil {
		logger = NewLogger("plugin")
	}
	// Once the host is gone, a log line on its stderr pipe would kill the
	// plugin with SIGPIPE before it stopped its language servers. A
	// notified (not ignored) SIGPIPE turns that into a write error and,
	// unlike an ignored one, is not inherited by the language servers.
	sigpipe := make(chan os.Signal, 1)
	signal.Notify(sigpipe, syscall.SIGPIPE)
	defer signal.Stop(sigpipe)
	shutdown := sync.OnceFunc(func() { shutdownAgent(agent, logger) })
	stopWatch := exitWhenAsked(shutdown, logger)
	defer stopWatch()

	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: Handshake,
		Plugins:         PluginSet(agent),
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			return plugin.DefaultGRPCServer(append(opts, grpc.MaxRecvMsgSize(maxMessageSize)))
		},
		Logger: logger,
	})

	shutdown()
}

func shutdownAgent(agent Agent, logger hclog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := agent.Shutdown(ctx); err != nil {
		logger.Warn("agent shutdown failed", "error", err)
	}
}

// exitWhenAsked runs shutdown and exits the process when the host is gone
// or a signal asks the plugin to stop. The host starts plugins in their own
// process group, so nothing else would stop them if the host were killed;
// on Linux the host also has the kernel send SIGTERM when it dies. The
// returned function stops watching for signals.
func exitWhenAsked(shutdown func(), logger hclog.Logger) (stop func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	hostGone := make(chan struct{})
	if os.Getenv(HostPipeEnv) == "stdin" {
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin) // the host writes nothing
			close(hostGone)
		}()
	}
	done := make(chan struct{})
	go func() {
		code := 1
		select {
		case <-done:
			return
		case <-hostGone:
			logger.Warn("host process exited; shutting down")
		case sig := <-sigs:
			logger.Info("shutting down on signal", "signal", sig.String())
			code = failure.Canceled.ExitCode()
		}
		shutdown()
		os.Exit(code)
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}
