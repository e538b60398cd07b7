package plugins

import (
	"os"
	"path/filepath"

	"github.com/langhost/langhost/plugins/pluginapi"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Launch says how to start a plugin process.
type Launch struct {
	Name string   // plugin name for logs and errors, e.g. "semantic"
	Path string   // executable: absolute, or looked up in PATH
	Args []string // arguments after the executable
	Env  []string // extra KEY=VALUE entries on top of the host's environment
	// Builtin names the agent when the plugin is compiled into the running
	// binary (see Builtins); "" for an external plugin.
	Builtin string
}

// Builtin returns the launch of a plugin compiled into the running
// binary: the binary re-executes itself as `<exe> plugin serve <name>`.
func Builtin(name string) (Launch, error) {
	exe, err := os.Executable()
	if err != nil {
		return Launch{}, failure.Wrap(failure.Internal, err, "locate the running executable to start plugin %s", name)
	}
	return Launch{Name: name, Path: exe, Args: []string{"plugin", "serve", name}, Builtin: name}, nil
}

// Key identifies one plugin process: one language in one workspace.
type Key struct {
	Language string
	Root     string
}

func (k Key) String() string { return k.Language + "@" + k.Root }

// Spec is what the manager needs to run a plugin for one workspace. The
// key is (Open.Language, Open.Root). After a crash the manager starts a new
// process from Launch and opens the workspace again with Open.
type Spec struct {
	Launch Launch
	Open   pluginapi.OpenRequest
}

func (s Spec) key() Key {
	return Key{Language: s.Open.Language, Root: s.Open.Root}
}

func (s Spec) validate() error {
	switch {
	case s.Launch.Path == "":
		return &failure.Error{Code: failure.InvalidInput, Field: "launch.path", Message: "plugin " + s.Launch.Name + " has no executable"}
	case s.Open.Language == "":
		return &failure.Error{Code: failure.InvalidInput, Field: "language", Message: "plugin " + s.Launch.Name + " needs a language id"}
	case !filepath.IsAbs(s.Open.Root):
		return &failure.Error{Code: failure.InvalidInput, Field: "root", Message: "workspace root " + s.Open.Root + " is not an absolute path"}
	}
	return nil
}
