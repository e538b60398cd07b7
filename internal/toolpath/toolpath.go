// Package toolpath finds language server executables as editors do: on
// PATH, then in the per-user directory a package manager installs tools
// into without putting it on PATH. `dotnet tool install -g csharp-ls`
// lands in ~/.dotnet/tools, which VS Code's C# extension and Emacs'
// lsp-mode look in too; a user who installs the C# server the way its
// README says should not also have to edit PATH.
package toolpath

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// LookPath is exec.LookPath, then the user tool directories (UserDirs)
// for a bare name. The user's home and environment are trusted, so this
// widens nothing a workspace controls.
func LookPath(name string) (string, error) {
	path, err := exec.LookPath(name)
	if err == nil || strings.ContainsRune(name, '/') || strings.ContainsRune(name, filepath.Separator) {
		return path, err
	}
	dirs := UserDirs()
	for _, dir := range dirs {
		if p, perr := exec.LookPath(filepath.Join(dir, name)); perr == nil {
			return p, nil
		}
	}
	if len(dirs) == 0 {
		return "", err
	}
	return "", fmt.Errorf("%w (nor in %s)", err, strings.Join(dirs, ", "))
}

// UserDirs lists the per-user tool directories searched after PATH:
// the .NET global tool directory ($DOTNET_CLI_HOME/.dotnet/tools, else
// ~/.dotnet/tools).
func UserDirs() []string {
	home := os.Getenv("DOTNET_CLI_HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return nil
		}
	}
	return []string{filepath.Join(home, ".dotnet", "tools")}
}
