// Package host assembles langhost: it loads the language specs from every
// source, registers their tools, and owns what lives as long as the host
// process (plugin processes).
package host

import (
	"context"
	"errors"
	"fmt"
	"github.com/hashicorp/go-hclog"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/langhost/langhost/host/config"
	"github.com/langhost/langhost/host/exectool"
	"github.com/langhost/langhost/host/filetools"
	"github.com/langhost/langhost/host/gate"
	"github.com/langhost/langhost/host/plugins"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/semantictool"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/languages"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Version is the langhost release and CLI contract version.
const Version = "0.1.0"

// Host is a loaded langhost.
type Host struct {
	Config    *config.Config
	Workspace *workspace.Root
	Specs     *spec.Set
	Registry  *registry.Registry
	Logger    hclog.Logger
	// Plugins owns the semantic agent processes; none runs until a
	// semantic tool is first called.
	Plugins *plugins.Manager
}

// Sources returns the spec search path of cfg in precedence order: embedded,
// user config dir, workspace .langhost/languages, then --languages dirs.
func Sources(cfg *config.Config, ws *workspace.Root) ([]spec.Source, error) {
	sources := []spec.Source{{Name: "embedded", FS: languages.FS, Label: "embedded:languages", NamedByID: true}}
	if dir, err := os.UserConfigDir(); err == nil {
		src, err := spec.DirSource("user", filepath.Join(dir, "langhost", "languages"), false)
		if err != nil {
			return nil, err
		}
		sources = append(sources, src)
	}
	src, err := spec.DirSource("workspace", config.WorkspaceSpecDir(ws.Dir()), false)
	if err != nil {
		return nil, err
	}
	if src.FS != nil && !cfg.Trust.Trusted {
		// Workspace specs define commands: list them as skipped, never read them.
		src.FS = untrustedFS{dir: src.FS, reason: errors.New(cfg.Trust.Reason)}
	}
	sources = append(sources, src)
	for _, dir := range cfg.Languages {
		src, err := spec.DirSource("flag", dir, true)
		if err != nil {
			return nil, err
		}
		sources = append(sources, src)
	}
	return sources, nil
}

// untrustedFS lists the spec files of an untrusted workspace but refuses
// to read them, so that each is reported as skipped, with the reason,
// rather than silently missing.
type untrustedFS struct {
	dir    fs.FS
	reason error
}

func (u untrustedFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(u.dir, name) }
func (u untrustedFS) Stat(string) (fs.FileInfo, error)           { return nil, u.reason }
func (u untrustedFS) Open(string) (fs.File, error)               { return nil, u.reason }

// Options are the optional parts of a host.
type Options struct {
	// Languages, when set, limits the host to the tools of these
	// languages, for a caller such as a single tool run: of the embedded
	// specs it parses just those languages' files, which keeps start-up
	// short.
	Languages []string
	// Builtins are the agent plugins compiled into the program (the
	// langhost binary serves them as `langhost plugin serve <name>`).
	// Languages served by a built-in plugin get their semantic tools only
	// when it is here; external plugins (`semantic.plugin`) need nothing.
	Builtins plugins.Builtins
	// SpecSources, if set, adjusts the spec sources before they are read:
	// a reloading MCP server keeps the last good version of a spec file
	// that broke.
	SpecSources func([]spec.Source) []spec.Source
}

// New loads specs and registers their tools, with no built-in plugins.
// Problems with single spec files do not fail New: they are in
// Specs.Problems.
func New(ctx context.Context, cfg *config.Config, logger hclog.Logger) (*Host, error) {
	return Open(ctx, cfg, logger, Options{})
}

// NewForLanguages is New for the tools of the given languages only (see
// Options.Languages).
func NewForLanguages(ctx context.Context, cfg *config.Config, logger hclog.Logger, ids []string) (*Host, error) {
	return Open(ctx, cfg, logger, Options{Languages: ids})
}

// Open loads specs and registers their tools. Problems with single spec
// files, and plugins that could not be described, do not fail Open: they
// are in Specs.Problems.
func Open(ctx context.Context, cfg *config.Config, logger hclog.Logger, opts Options) (*Host, error) {
	return newHost(ctx, cfg, logger, opts)
}

func newHost(ctx context.Context, cfg *config.Config, logger hclog.Logger, opts Options) (*Host, error) {
	ws, err := workspace.New(cfg.Workspace)
	if err != nil {
		return nil, err
	}
	if slices.Contains(opts.Languages, filetools.Namespace) {
		// The workspace tools pick a file's language by its extension:
		// they need every spec.
		opts.Languages = nil
	}
	sources, err := Sources(cfg, ws)
	if err != nil {
		return nil, err
	}
	if opts.SpecSources != nil {
		sources = opts.SpecSources(sources)
	}
	specs, err := spec.LoadLanguages(ctx, sources, opts.Languages, spec.Limits{MaxSize: cfg.SpecMaxSize})
	if err != nil {
		// Only a cancelled or expired ctx fails loading: keep its class
		// (canceled, timeout) rather than calling it a host failure.
		return nil, failure.Wrap(failure.CodeOf(err), err, "start host")
	}
	h := &Host{Config: cfg, Workspace: ws, Specs: specs, Registry: registry.New(), Logger: logger,
		Plugins: plugins.NewManager(logger.Named("plugins"), plugins.WithBuiltins(opts.Builtins))}
	err = exectool.Register(h.Registry, h.Specs, exectool.Options{
		Workspace: ws,
		Timeout:   cfg.Timeout,
		MaxOutput: cfg.MaxOutput,
	})
	if err != nil {
		return nil, fmt.Errorf("register tools: %w", err)
	}
	problems, err := semantictool.Register(ctx, h.Registry, h.Specs, ws, cfg.Trust.Trusted, h.Plugins, logger)
	h.Specs.Problems = append(h.Specs.Problems, problems...)
	if err != nil {
		_ = h.Plugins.Close()
		return nil, err
	}
	err = filetools.Register(h.Registry, filetools.Options{Workspace: ws, Specs: h.Specs,
		Gate: gate.Options{Exec: exectool.Options{Timeout: cfg.Timeout, MaxOutput: cfg.MaxOutput}}})
	if err != nil {
		_ = h.Plugins.Close()
		return nil, fmt.Errorf("register tools: %w", err)
	}
	return h, nil
}

// Close stops the plugin processes (and their language servers).
func (h *Host) Close() error { return h.Plugins.Close() }
