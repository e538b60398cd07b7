package host

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencyDirection keeps the arrows pointing one way: cmd -> host
// -> plugins/pluginapi. The host learns what a plugin serves from its
// Describe answer, so no package under host/ may import an agent
// (plugins/semantic, plugins/dotnet, plugins/lsp, plugins/roslynagent,
// plugins/builtin), and nothing under plugins/ or parsers/ may import
// host/. Test files are free to: they stand in for the langhost binary.
func TestDependencyDirection(t *testing.T) {
	const module = "github.com/langhost/langhost/"
	out, err := exec.Command("go", "list", "-e", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "../...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	agents := []string{"plugins/semantic", "plugins/dotnet", "plugins/lsp", "plugins/roslynagent", "plugins/builtin"}
	checked := 0
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		pkg, ok := strings.CutPrefix(fields[0], module)
		if !ok {
			continue
		}
		checked++
		for _, imp := range fields[1:] {
			dep, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			switch {
			case under(pkg, "host"):
				for _, a := range agents {
					if under(dep, a) {
						t.Errorf("%s imports %s: the host must learn operations from Describe, not from an agent's code", pkg, dep)
					}
				}
			case under(pkg, "plugins") || under(pkg, "parsers"):
				if under(dep, "host") {
					t.Errorf("%s imports %s: plugins and parsers never import the host", pkg, dep)
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("checked only %d packages: is go list's output what this test expects?\n%s", checked, out)
	}
}

// under reports whether pkg is dir or a package below it.
func under(pkg, dir string) bool {
	return pkg == dir || strings.HasPrefix(pkg, dir+"/")
}
