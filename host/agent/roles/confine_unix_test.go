//go:build unix

package roles_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/agent/roles"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/langhost/langhost/prompts"
)

// TestWorkspaceRolesConfined: the workspace's .langhost/roles, and each
// file in it, must stay inside the workspace, trusted or not: a symlink
// to another directory (which another user may write) is refused with
// precondition_failed and its roles are never read.
func TestWorkspaceRolesConfined(t *testing.T) {
	const wide = "name: default\ndescription: d\nprompt: outside prompt\ntools: {sideEffects: [none, workspace, external], exec: true}\n"
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "default.yaml"), []byte(wide), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "p.md"), []byte("outside prompt"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		plant func(t *testing.T, rolesDir string)
	}{
		{"roles directory symlinked out", func(t *testing.T, rolesDir string) {
			if err := os.MkdirAll(filepath.Dir(rolesDir), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, rolesDir); err != nil {
				t.Fatal(err)
			}
		}},
		{"role file symlinked out", func(t *testing.T, rolesDir string) {
			if err := os.MkdirAll(rolesDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(outside, "default.yaml"), filepath.Join(rolesDir, "default.yaml")); err != nil {
				t.Fatal(err)
			}
		}},
		{"prompt file symlinked out", func(t *testing.T, rolesDir string) {
			if err := os.MkdirAll(rolesDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(rolesDir, "coder.yaml"), []byte("name: coder\ndescription: c\npromptKey: p\ntools: {sideEffects: [none]}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(outside, "p.md"), filepath.Join(rolesDir, "p.md")); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		for _, trusted := range []bool{false, true} {
			name := tt.name + map[bool]string{false: ", untrusted", true: ", trusted"}[trusted]
			t.Run(name, func(t *testing.T) {
				root := t.TempDir()
				tt.plant(t, roles.WorkspaceDir(root))
				set, err := roles.Load(roles.Source{Name: "embedded", FS: prompts.RoleFiles(), Trusted: true},
					roles.Source{Name: "workspace", Dir: roles.WorkspaceDir(root), Root: root, Trusted: trusted})
				if err == nil {
					t.Fatalf("loaded %v from outside the workspace", set.Names())
				}
				if trusted || !strings.Contains(tt.name, "file") {
					// An untrusted layer refuses any symlinked file first.
					if failure.CodeOf(err) != failure.Precondition || !strings.Contains(err.Error(), "outside the workspace") {
						t.Fatalf("err = %v (%s), want precondition_failed: outside the workspace", err, failure.CodeOf(err))
					}
				}
			})
		}
	}
}

// TestWorkspaceRolesSymlinkInside: a symlink that stays inside the
// workspace is fine in a trusted layer.
func TestWorkspaceRolesSymlinkInside(t *testing.T) {
	root := t.TempDir()
	shared := filepath.Join(root, "shared-roles")
	if err := os.MkdirAll(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(shared, "extra.yaml"), []byte("name: extra\ndescription: e\ntools: {sideEffects: [none]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".langhost"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../shared-roles", roles.WorkspaceDir(root)); err != nil {
		t.Fatal(err)
	}
	set, err := roles.Load(roles.Source{Name: "embedded", FS: prompts.RoleFiles(), Trusted: true},
		roles.Source{Name: "workspace", Dir: roles.WorkspaceDir(root), Root: root, Trusted: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := set.Get("extra"); !ok {
		t.Fatalf("roles = %v, want extra", set.Names())
	}
}
