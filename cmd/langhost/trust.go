package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/langhost/langhost/host/config"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/spf13/cobra"
)

type trustOptions struct {
	f      *factory
	revoke bool
	list   bool
	now    func() time.Time
}

// trustResult is the data of `langhost trust` and `langhost trust --revoke`.
type trustResult struct {
	Action    string    `json:"action"` // trusted, revoked or not_trusted
	Root      string    `json:"root"`
	Digest    string    `json:"digest,omitempty"`
	Files     []string  `json:"files,omitempty"`
	Grants    []string  `json:"grants,omitempty"`
	TrustedAt time.Time `json:"trusted_at,omitzero"`
}

// trustedWorkspace is one entry of `langhost trust --list`.
type trustedWorkspace struct {
	config.TrustEntry
	// Status is "trusted", "changed" (its files changed since: not trusted
	// until trusted again) or "unavailable: <why>".
	Status string `json:"status"`
}

func newTrustCmd(f *factory) *cobra.Command {
	opts := &trustOptions{f: f, now: time.Now}
	cmd := &cobra.Command{
		Use:   "trust [DIR]",
		Short: "Trust a workspace: apply all of its .langhost.yaml and load its specs",
		Long: `Mark the workspace DIR (default: the workspace) as trusted.

An untrusted workspace's .langhost.yaml may set only format, log.level and
lower limits (timeout, max_output, daemon.idle_timeout, spec.max_size) to
smaller positive values (0 or less would remove a limit); keys
that grant something (tools.allow, languages, workspace, mcp.token, daemon.enabled)
are ignored with a warning, and its specs in .langhost/languages are not loaded.

Trust is recorded in trusted.json in the user config dir for the workspace's
real path (symlinks resolved) and a digest of every file that changes what
runs or what is permitted: its .langhost.yaml, .langhost/languages/*.yaml,
.langhost/roles/*.yaml and *.md, the spec files of the directories its
.langhost.yaml names under languages (inside the workspace or not), and the
YAML files under bench/ (scenarios and run configs, whose commands bench run
runs only from there). When any of them changes, appears or disappears, the
workspace is untrusted again until you review it and run langhost trust
again. Prompts (.langhost/prompts, AGENTS.md) are not covered: they are
text, always given to the model as the workspace's data.

--trust-workspace or LANGHOST_TRUST_WORKSPACE=1 trusts every workspace for
one run (for CI, where the checkout is what you run anyway).`,
		Example: `  langhost trust
  langhost trust ~/src/project
  langhost trust --list
  langhost trust --revoke ~/src/project`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := ""
			if len(args) == 1 {
				dir = args[0]
			}
			return trustRun(cmd, opts, dir)
		},
	}
	cmd.Flags().BoolVar(&opts.revoke, "revoke", false, "stop trusting the workspace")
	cmd.Flags().BoolVar(&opts.list, "list", false, "list the trusted workspaces and whether each is still trusted")
	cmd.MarkFlagsMutuallyExclusive("revoke", "list")
	return cmd
}

func trustRun(cmd *cobra.Command, opts *trustOptions, dir string) error {
	store := config.TrustStore{File: opts.f.paths.Trust}
	p := printer{opts.f}
	if opts.list {
		if dir != "" {
			return failure.New(failure.InvalidInput, "trust --list takes no directory")
		}
		list, err := trustList(opts.f.paths, store)
		if err != nil {
			return err
		}
		return p.result(commandPath(cmd), list, nil, func(w io.Writer) error {
			rows := [][]string{{"PATH", "STATUS", "TRUSTED AT"}}
			for _, e := range list {
				rows = append(rows, []string{e.Path, e.Status, e.TrustedAt.Format(time.RFC3339)})
			}
			return opts.f.table(w, rows)
		})
	}
	if dir == "" {
		cfg, err := opts.f.config()
		if err != nil {
			return err
		}
		dir = cfg.Workspace
	}
	var res *trustResult
	var err error
	if opts.revoke {
		res, err = trustRevoke(store, dir)
	} else {
		res, err = trustAdd(opts, store, dir)
	}
	if err != nil {
		return err
	}
	return p.result(commandPath(cmd), res, nil, func(w io.Writer) error {
		switch res.Action {
		case "revoked":
			fmt.Fprintf(w, "%s is no longer trusted\n", res.Root)
		case "not_trusted":
			fmt.Fprintf(w, "%s was not trusted\n", res.Root)
		default:
			fmt.Fprintf(w, "trusted %s\n", res.Root)
			fmt.Fprintf(w, "  covers: %s\n", joinOrNone(res.Files))
			fmt.Fprintf(w, "  grants: %s\n", joinOrNone(res.Grants))
			fmt.Fprintln(w, "Changing these files withdraws the trust until you run langhost trust again.")
		}
		return nil
	})
}

func trustAdd(opts *trustOptions, store config.TrustStore, dir string) (*trustResult, error) {
	if store.File == "" {
		return nil, failure.New(failure.Precondition, "no user config directory to keep trusted workspaces in (set HOME or XDG_CONFIG_HOME)")
	}
	snap, err := config.TakeSnapshot(opts.f.paths, dir)
	if err != nil {
		if !isFailure(err) {
			err = failure.Wrap(failure.InvalidInput, err, "trust %s", dir)
		}
		return nil, err
	}
	e, err := store.Add(snap, opts.now())
	if err != nil {
		return nil, storeFailure(err)
	}
	return &trustResult{Action: "trusted", Root: snap.Root, Digest: snap.Digest, Files: snap.Files,
		Grants: snap.Grants, TrustedAt: e.TrustedAt}, nil
}

// trustRevoke forgets dir; a directory that no longer exists is forgotten
// by its absolute path.
func trustRevoke(store config.TrustStore, dir string) (*trustResult, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, failure.Wrap(failure.InvalidInput, err, "trust --revoke %s", dir)
	}
	if ws, err := workspace.New(dir); err == nil {
		root = ws.Dir()
	}
	removed, err := store.Remove(root)
	if err != nil {
		return nil, storeFailure(err)
	}
	res := &trustResult{Action: "revoked", Root: root}
	if !removed {
		res.Action = "not_trusted"
	}
	return res, nil
}

func trustList(paths config.Paths, store config.TrustStore) ([]trustedWorkspace, error) {
	entries, err := store.List()
	if err != nil {
		return nil, storeFailure(err)
	}
	list := []trustedWorkspace{}
	for _, e := range entries {
		status := "trusted"
		snap, err := config.TakeSnapshot(paths, e.Path)
		switch {
		case err != nil:
			status = "unavailable: " + err.Error()
		case snap.Digest != e.Digest:
			status = "changed"
		}
		list = append(list, trustedWorkspace{TrustEntry: e, Status: status})
	}
	return list, nil
}

// storeFailure classifies a trust store error: a store that does not
// parse is bad input, one that cannot be read or written is the
// environment's.
func storeFailure(err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syntax) || errors.As(err, &typ) {
		return failure.Wrap(failure.InvalidInput, err, "trust store")
	}
	return failure.Wrap(failure.Precondition, err, "trust store")
}

func joinOrNone(list []string) string {
	if len(list) == 0 {
		return "(none)"
	}
	return strings.Join(list, ", ")
}
