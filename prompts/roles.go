package prompts

import (
	"embed"
	"io/fs"

	"github.com/langhost/langhost/host/agent/roles"
)

// RolesFS holds the shipped role definitions (roles/*.yaml), the first
// layer roles.Load reads.
//
//go:embed roles/*.yaml
var RolesFS embed.FS

// RoleFiles is the embedded layer of role files, for roles.Load.
func RoleFiles() fs.FS {
	sub, err := fs.Sub(RolesFS, "roles")
	if err != nil {
		panic(err) // the directory is embedded; it cannot be missing
	}
	return sub
}

// LoadRoles loads the shipped roles, then the user's (next to the user
// config file), then the workspace's; the workspace layer widens nothing
// unless trusted.
func LoadRoles(userConfigFile, workspaceRoot string, trusted bool) (*roles.Set, error) {
	sources := []roles.Source{
		{Name: "embedded", FS: RoleFiles(), Trusted: true},
		{Name: "user", Dir: roles.UserDir(userConfigFile), Trusted: true},
	}
	if workspaceRoot != "" {
		sources = append(sources, roles.Source{Name: "workspace", Dir: roles.WorkspaceDir(workspaceRoot), Root: workspaceRoot, Trusted: trusted})
	}
	return roles.Load(sources...)
}
