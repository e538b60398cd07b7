package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/langhost/langhost/host/mcpserver"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/spf13/cobra"
)

// mcpClients are the clients --print-config writes a snippet for.
var mcpClients = []string{"claude", "codex", "vscode", "cursor"}

// mcpServerName is the server's name in the snippets: Claude Code names
// its tools mcp__<server>__<tool>.
const mcpServerName = "langhost"

// mcpPrintConfig prints the configuration snippet of client for this
// workspace: the server entry and, for clients that approve tools by
// name, the tools `langhost mcp` serves here with the same flags.
func mcpPrintConfig(cmd *cobra.Command, opts *mcpOptions, srvOpts mcpserver.Options) error {
	client := opts.printConfig
	if !slices.Contains(mcpClients, client) {
		return &failure.Error{Code: failure.InvalidInput, Field: "print-config",
			Message: fmt.Sprintf("--print-config %q: use one of %s", client, strings.Join(mcpClients, ", "))}
	}
	h, err := opts.f.loadHost(cmd.Context())
	if err != nil {
		return err
	}
	names, err := mcpserver.Names(h, srvOpts)
	if err != nil {
		return err
	}
	out, err := mcpSnippet(client, names)
	if err != nil {
		return err
	}
	_, err = opts.f.io.Out.Write(out)
	return err
}

// mcpSnippet is the snippet of client naming tools (MCP names).
func mcpSnippet(client string, tools []string) ([]byte, error) {
	switch client {
	case "claude":
		// .claude/settings.json: the server itself is in .mcp.json (or
		// `claude mcp add`); these tools run without a prompt, the
		// others (and langhost_apply) ask. --permission-mode acceptEdits
		// does not cover MCP tools.
		allow := make([]string, len(tools))
		for i, t := range tools {
			allow[i] = "mcp__" + mcpServerName + "__" + t
		}
		return jsonSnippet(map[string]any{"permissions": map[string]any{"allow": allow}})
	case "codex":
		// ~/.codex/config.toml: the tools listed are approved, others
		// prompt. approval_policy = "never" would refuse every prompt.
		var b bytes.Buffer
		fmt.Fprintf(&b, "[mcp_servers.%s]\ncommand = \"langhost\"\nargs = [\"mcp\"]\ndefault_tools_approval_mode = \"prompt\"\n", mcpServerName)
		for _, t := range tools {
			fmt.Fprintf(&b, "\n[mcp_servers.%s.tools.%s]\napproval_mode = \"approve\"\n", mcpServerName, strconv.Quote(t))
		}
		return b.Bytes(), nil
	case "vscode":
		// .vscode/mcp.json; VS Code asks before each tool until "Always
		// allow" is chosen in its prompt.
		return jsonSnippet(map[string]any{"servers": map[string]any{mcpServerName: map[string]any{
			"type": "stdio", "command": "langhost", "args": []string{"mcp", "--workspace", "${workspaceFolder}"}}}})
	case "cursor":
		// .cursor/mcp.json; Cursor asks before each tool unless it is
		// on its auto-run allowlist (Settings > Chat).
		return jsonSnippet(map[string]any{"mcpServers": map[string]any{mcpServerName: map[string]any{
			"command": "langhost", "args": []string{"mcp", "--workspace", "${workspaceFolder}"}}}})
	}
	return nil, fmt.Errorf("no snippet for client %q", client)
}

func jsonSnippet(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
