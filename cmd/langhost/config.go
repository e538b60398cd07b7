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
the user config file (~/.config/langhost/config.yaml), ./.langhost.yaml,
LANGHOST_* environment variables, flags.`,
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
	data := map[string]any{"values": list, "files": cfg.Files}
	return printer{opts.f}.result(commandPath(cmd), data, nil, func(w io.Writer) error {
		rows := [][]string{{"KEY", "VALUE", "SOURCE"}}
		for _, v := range list {
			rows = append(rows, []string{v.Key, fmt.Sprint(v.Value), v.Source})
		}
		return table(w, rows)
	})
}
