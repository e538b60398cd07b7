package toolpath

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestLookPathFindsDotnetGlobalTools(t *testing.T) {
	home := t.TempDir()
	tools := filepath.Join(home, ".dotnet", "tools")
	if err := os.MkdirAll(tools, 0o755); err != nil {
		t.Fatal(err)
	}
	server := filepath.Join(tools, "csharp-ls")
	if err := os.WriteFile(server, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tools, "not-executable"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("DOTNET_CLI_HOME", "")
	t.Setenv("PATH", t.TempDir())

	tests := []struct {
		name, want string
		found      bool
	}{
		{"csharp-ls", server, true},
		{"not-executable", "", false},
		{"missing", "", false},
		{"./csharp-ls", "", false}, // a path is not searched for
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LookPath(tt.name)
			if tt.found {
				if err != nil || got != tt.want {
					t.Fatalf("LookPath(%q) = %q, %v; want %q", tt.name, got, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("LookPath(%q) = %q, want an error", tt.name, got)
			}
			if !errors.Is(err, exec.ErrNotFound) && !strings.Contains(err.Error(), "permission") && !strings.Contains(err.Error(), "no such file") {
				t.Errorf("LookPath(%q) error %v", tt.name, err)
			}
		})
	}

	// DOTNET_CLI_HOME moves the tool directory, as it does for dotnet.
	t.Setenv("DOTNET_CLI_HOME", t.TempDir())
	if got, err := LookPath("csharp-ls"); err == nil {
		t.Errorf("with DOTNET_CLI_HOME elsewhere, LookPath found %q", got)
	} else if !strings.Contains(err.Error(), filepath.Join(os.Getenv("DOTNET_CLI_HOME"), ".dotnet", "tools")) {
		t.Errorf("error %q does not name the directory searched", err)
	}
}
