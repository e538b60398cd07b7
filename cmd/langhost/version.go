package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/langhost/langhost/host"
	"github.com/spf13/cobra"
)

// versionInfo is what `langhost version` reports.
type versionInfo struct {
	Version string `json:"version"`
	// Module is the module version the binary was built from: a tag
	// with go install m@v, "(devel)" in a clone.
	Module    string `json:"module,omitempty"`
	GoVersion string `json:"go"`
	// Commit, CommitTime and Modified come from the VCS stamp of the
	// build (absent with -buildvcs=false or outside a checkout).
	Commit     string `json:"commit,omitempty"`
	CommitTime string `json:"commit_time,omitempty"`
	Modified   bool   `json:"modified,omitempty"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
}

func newVersionCmd(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print langhost's version, the Go version and commit it was built with, and the platform",
		Example: `  langhost version
  langhost version --jq .data.commit`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := buildVersion()
			return printer{f}.result(commandPath(cmd), v, nil, func(w io.Writer) error {
				commit := "unknown (built without VCS stamping)"
				if v.Commit != "" {
					commit = v.Commit
					if v.Modified {
						commit += " (modified)"
					}
					if v.CommitTime != "" {
						commit += " " + v.CommitTime
					}
				}
				_, err := fmt.Fprintf(w, "langhost %s\ncommit:   %s\ngo:       %s\nplatform: %s/%s\n",
					v.Version, commit, v.GoVersion, v.OS, v.Arch)
				return err
			})
		},
	}
}

func buildVersion() versionInfo {
	v := versionInfo{Version: host.Version, GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	v.Module = info.Main.Version
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.time":
			v.CommitTime = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}
