package prompts

import (
	"io/fs"

	"github.com/langhost/langhost/internal/safefile"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// workspacePromptsDir is the workspace's directory of prompt files.
const workspacePromptsDir = ".langhost/prompts"

// maxPromptEntries bounds the names listed from .langhost/prompts.
const maxPromptEntries = 10000

// promptEntries lists the workspace's .langhost/prompts like any hostile
// directory: it must resolve inside the workspace (a symlink to another
// directory is refused, so not even its names are read) and is opened
// without blocking, so a named pipe planted there cannot stop the agent.
// A missing directory lists nothing.
func promptEntries(ws *workspace.Root) ([]fs.DirEntry, error) {
	real, err := ws.ResolveRead("workspace prompts", workspacePromptsDir)
	if failure.CodeOf(err) == failure.NotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	d, err := safefile.OpenDir(real)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	entries, err := d.ReadDir(maxPromptEntries)
	if err != nil && len(entries) == 0 {
		return nil, nil // io.EOF: empty
	}
	return entries, nil
}
