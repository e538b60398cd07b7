package semantic

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// Coverage says whether a list answer holds everything the server knows
// about the workspace. An agent acts on an answer without checking it, so
// an answer that is known to miss results says so and why: the server cut
// it at its cap, could not load the workspace, or was started on less than
// the project the workspace belongs to.
type Coverage struct {
	Complete   bool   `json:"complete" jsonschema:"false when results are known to be missing; incomplete says why"`
	Incomplete string `json:"incomplete,omitempty" jsonschema:"why results may be missing"`
}

func (cv *Coverage) coverage() *Coverage { return cv }

// coverer is an operation output that is a list of results.
type coverer interface{ coverage() *Coverage }

// settle finishes cv once the operation has run: the answer is complete
// unless the operation or one of reasons (those that are not "") says
// what it misses.
func (cv *Coverage) settle(reasons ...string) {
	for _, r := range reasons {
		if r != "" {
			cv.Incomplete = joinReason(cv.Incomplete, r)
		}
	}
	cv.Complete = cv.Incomplete == ""
}

// goplsWorkspaceStats is gopls's command that counts the packages each of
// its views loaded.
const goplsWorkspaceStats = "gopls.workspace_stats"

// checkLoad returns why the server's answers miss code of the workspace
// although it started, or "". gopls answers an empty workspace when the go
// command cannot list the module's packages (a required module it cannot
// download, a broken go.work): every query then finds nothing and reports
// no error, and gopls logs nothing while no file is open. Its workspace
// statistics show it, as a view with no workspace package.
func (s *session) checkLoad(ctx context.Context) string {
	if !s.hasCommand(goplsWorkspaceStats) {
		return ""
	}
	var stats struct {
		Views []struct {
			WorkspacePackages struct{ Packages int }
		}
	}
	if err := s.srv.Call(ctx, "workspace/executeCommand", map[string]any{"command": goplsWorkspaceStats}, &stats); err != nil {
		s.e.log.Debug("asking for workspace statistics", "error", err)
		return ""
	}
	for _, v := range stats.Views {
		if v.WorkspacePackages.Packages > 0 {
			return ""
		}
	}
	file := firstPackageFile(s.e.lspRoot)
	if file == "" {
		return "" // nothing to load
	}
	rel, _ := filepath.Rel(s.e.lspRoot, filepath.Dir(file))
	why := "run `go list ./...` in " + s.e.lspRoot + " to see why"
	// gopls says why on go.mod or go.work when the file itself is wrong.
	for _, d := range s.srv.AllDiagnostics() {
		name := path.Base(string(d.URI))
		if name != "go.mod" && name != "go.work" {
			continue
		}
		for _, diag := range d.Diagnostics {
			if diag.Severity == 1 { // error
				why = fmt.Sprintf("%s:%d: %s; %s", name, diag.Range.Start.Line+1, diag.Message, why)
				break
			}
		}
	}
	return fmt.Sprintf("%s loaded no package of %s although it holds Go files (%s): the go command could not list the workspace's packages, so answers miss all of its code (%s)",
		s.name, s.e.lspRoot, filepath.ToSlash(rel), why)
}

// firstPackageFile returns a .go file under root that the go command
// would list in a package (not under testdata or a directory whose name
// starts with _ or .), or "".
func firstPackageFile(root string) string {
	var found string
	walkFiles(root, func(path string) bool {
		rel, _ := filepath.Rel(root, path)
		for _, dir := range strings.Split(filepath.ToSlash(filepath.Dir(rel)), "/") {
			if dir == "testdata" || strings.HasPrefix(dir, "_") {
				return true
			}
		}
		if filepath.Ext(path) == ".go" {
			found = path
			return false
		}
		return true
	})
	return found
}
