package main

import (
	"fmt"
	"io"

	"github.com/langhost/langhost/host/config"
	"github.com/spf13/cobra"
)

type configShowOptions struct {
	f *factory
}

type configValue struct {
	Key    string `json:"key"`
	Value  any    `json:"value"`
	Source string `json:"source"`
}

func newConfigCmd(f *factory) *cobra.Command {
	cmd := &cobra.Command{Use: "config", Short: "Inspect the host configuration"}
	opts := &configShowOptions{f: f}
	cmd.AddCommand(&cobra.Command{
		Use:   "show",
		Short: "Print the effective configuration and where each value came from",
		Long: `Print the effective configuration. Precedence, lowest first: defaults,
the user config file (~/.config/langhost/config.yaml), the workspace's
.langhost.yaml, LANGHOST_* environment variables, flags.

Unless the workspace is trusted (see langhost trust), its .langhost.yaml may
set only format, log.level and lower limits (a smaller positive value:
0, negative or unparsable values, which would remove the limit, are
ignored like a raise); the settings it may not set are listed as ignored,
with the reason.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return configShowRun(cmd, opts) },
	})
	return cmd
}

func configShowRun(cmd *cobra.Command, opts *configShowOptions) error {
	cfg, err := opts.f.config()
	if err != nil {
		return err
	}
	values := cfg.Values()
	list := []configValue{}
	for _, k := range config.SortedKeys() {
		list = append(list, configValue{Key: k, Value: values[k], Source: cfg.Origin(k)})
	}
	ignored := cfg.Ignored
	if ignored == nil {
		ignored = []config.Ignored{}
	}
	data := map[string]any{"values": list, "files": cfg.Files, "trust": cfg.Trust, "ignored": ignored}
	return printer{opts.f}.result(commandPath(cmd), data, nil, func(w io.Writer) error {
		rows := [][]string{{"KEY", "VALUE", "SOURCE"}}
		for _, v := range list {
			rows = append(rows, []string{v.Key, fmt.Sprint(v.Value), v.Source})
		}
		for _, i := range ignored {
			rows = append(rows, []string{i.Key, fmt.Sprint(i.Value),
				fmt.Sprintf("ignored: %s:%d (it %s): %s", i.File, i.Line, i.Grants, i.Reason)})
		}
		if err := opts.f.table(w, rows); err != nil {
			return err
		}
		root := cfg.Trust.Root
		if root == "" {
			root = cfg.Workspace
		}
		_, err := fmt.Fprintf(w, "\nworkspace %s: %s\n", root, cfg.Trust.Reason)
		return err
	})
}
