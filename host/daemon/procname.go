package daemon

import (
	"path/filepath"
	"slices"
	"strings"
)

// interpreters run a language server written in their language: the
// server is the script they run, not them.
var interpreters = []string{"node", "nodejs", "bun", "deno", "python", "python3", "dotnet", "java", "ruby", "perl"}

// processName names a process of a daemon's tree by what it is, from its
// command line: "gopls" for /root/go/bin/gopls, "pyright-langserver" for
// node /x/.bin/pyright-langserver --stdio, "tsserver" for node
// .../typescript/lib/tsserver.js, "langhost plugin serve semantic" for a
// plugin. A node command line cut at 40 characters says none of that.
func processName(command string) string {
	fields := strings.Fields(command)
	if len(fields) == 0 {
		return ""
	}
	if fields[len(fields)-1] == "langhost-reaper" {
		return "langhost reaper" // the shell that waits (procgroup's reaperScript)
	}
	name := base(fields[0])
	if slices.Contains(interpreters, strings.TrimSuffix(name, ".exe")) || isVersioned(name, interpreters) {
		for _, a := range fields[1:] {
			if strings.HasPrefix(a, "-") {
				continue
			}
			return scriptName(a)
		}
		return name
	}
	if name == "langhost" || strings.HasPrefix(name, "langhost") && len(fields) > 1 && fields[1] == "plugin" {
		// The plugin's own words say which plugin it is.
		words := []string{"langhost"}
		for _, a := range fields[1:] {
			if strings.HasPrefix(a, "-") || len(words) == 4 {
				break
			}
			words = append(words, a)
		}
		return strings.Join(words, " ")
	}
	return name
}

// scriptName names the script an interpreter runs: its file name without
// the extension, or for a generic one (cli.mjs, index.js) the npm package
// it belongs to.
func scriptName(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	name := base(p)
	for _, ext := range []string{".js", ".mjs", ".cjs", ".dll", ".py", ".jar"} {
		name = strings.TrimSuffix(name, ext)
	}
	if !slices.Contains([]string{"cli", "index", "main", "server", "bin"}, name) {
		return name
	}
	if _, after, ok := cutLast(p, "node_modules/"); ok {
		parts := strings.Split(after, "/")
		if strings.HasPrefix(parts[0], "@") && len(parts) > 1 {
			return parts[0] + "/" + parts[1]
		}
		return parts[0]
	}
	return name
}

func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// base is the last element of a path of either separator.
func base(p string) string {
	return filepath.Base(strings.ReplaceAll(p, `\`, "/"))
}

// isVersioned reports whether name is one of names with a version suffix
// (python3.12, node22).
func isVersioned(name string, names []string) bool {
	for _, n := range names {
		if rest, ok := strings.CutPrefix(name, n); ok && rest != "" && strings.Trim(rest, "0123456789.") == "" {
			return true
		}
	}
	return false
}
