package dotnet

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Workspace is the answer to list_projects.
type Workspace struct {
	// Solutions found at the workspace root; empty when the projects were
	// found by scanning the tree.
	Solutions []Solution       `json:"solutions"`
	Projects  []ProjectSummary `json:"projects"`
}

// ProjectSummary is one project of a workspace.
type ProjectSummary struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Folder string `json:"folder,omitempty"` // solution folder, if any
	Exists bool   `json:"exists"`
	// OutsideWorkspace is set when Path leads outside the workspace,
	// directly or through a symlink; the project is not read.
	OutsideWorkspace bool `json:"outside_workspace,omitempty"`
}

// ListProjects finds the solutions and projects of the workspace at root.
// A .sln or .slnx at the root wins; otherwise every .csproj under root is
// listed (hidden, dependency and build output directories are skipped: workspace.SkipDir).
func ListProjects(ctx context.Context, root string) (*Workspace, error) {
	t, err := newTree(root)
	if err != nil {
		return nil, err
	}
	return t.listProjects(ctx)
}

func (t *tree) listProjects(ctx context.Context) (*Workspace, error) {
	root := t.root
	entries, err := os.ReadDir(filepath.FromSlash(root))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, failure.Wrap(failure.NotFound, err, "workspace root %s does not exist", root)
		}
		return nil, failure.Wrap(failure.Internal, err, "read workspace root %s", root)
	}
	ws := &Workspace{Solutions: []Solution{}, Projects: []ProjectSummary{}}
	seen := map[string]bool{}
	for _, e := range entries {
		ext := strings.ToLower(path.Ext(e.Name()))
		if e.IsDir() || (ext != ".sln" && ext != ".slnx") {
			continue
		}
		sol, err := t.parseSolution(root + "/" + e.Name())
		if err != nil {
			return nil, err
		}
		ws.Solutions = append(ws.Solutions, *sol)
		for _, p := range sol.Projects {
			if seen[p.Path] {
				continue
			}
			seen[p.Path] = true
			ws.Projects = append(ws.Projects, ProjectSummary{Name: p.Name, Path: p.Path, Folder: p.Folder, Exists: p.Exists, OutsideWorkspace: p.OutsideWorkspace})
		}
	}
	if len(ws.Solutions) == 0 {
		files, err := findProjectFiles(ctx, root)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			// A symlinked project file may lead out; list it, never read it.
			k := t.lookup(f)
			ws.Projects = append(ws.Projects, ProjectSummary{
				Name: strings.TrimSuffix(path.Base(f), path.Ext(f)), Path: relSlash(root, f),
				Exists: k == kindFile, OutsideWorkspace: k == kindOutside,
			})
		}
	}
	if len(ws.Projects) == 0 {
		return nil, failure.New(failure.NotFound, "no .sln, .slnx or .csproj file found under %s", root)
	}
	sort.SliceStable(ws.Projects, func(i, j int) bool { return ws.Projects[i].Path < ws.Projects[j].Path })
	return ws, nil
}

func findProjectFiles(ctx context.Context, root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(filepath.FromSlash(root), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			if p != filepath.FromSlash(root) && workspace.SkipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.EqualFold(filepath.Ext(p), ".csproj") {
			out = append(out, filepath.ToSlash(p))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(out)
	return out, nil
}

// resolveProject turns a project spec into an absolute project path. spec
// may be a path (relative to root) to a .csproj, a directory holding exactly
// one .csproj, or a project name from list_projects. An empty spec is
// accepted when the workspace has exactly one project. A path that leads
// outside the workspace is refused.
func (t *tree) resolveProject(ctx context.Context, spec string) (string, error) {
	root := t.root
	spec = strings.ReplaceAll(strings.TrimSpace(spec), `\`, "/")
	if spec != "" {
		abs := t.abs(msbuildPath(root, spec))
		switch t.lookup(abs) {
		case kindFile:
			return abs, nil
		case kindOutside:
			return "", &failure.Error{Code: failure.Precondition, Field: "project",
				Message: fmt.Sprintf("%q leads outside the workspace %s; its projects are not read", spec, root)}
		case kindDir:
			candidates, _ := filepath.Glob(filepath.Join(filepath.FromSlash(abs), "*.csproj"))
			var matches []string
			for _, m := range candidates {
				if t.isFile(filepath.ToSlash(m)) {
					matches = append(matches, m)
				}
			}
			switch len(matches) {
			case 1:
				return filepath.ToSlash(matches[0]), nil
			case 0:
				return "", &failure.Error{Code: failure.NotFound, Field: "project",
					Message: "directory " + relSlash(root, abs) + " holds no .csproj file"}
			default:
				return "", &failure.Error{Code: failure.Ambiguous, Field: "project",
					Message: "directory " + relSlash(root, abs) + " holds several .csproj files",
					Details: map[string]any{"candidates": relAll(root, matches)}}
			}
		}
	}
	ws, err := t.listProjects(ctx)
	if err != nil {
		return "", err
	}
	if spec == "" {
		if len(ws.Projects) == 1 {
			return t.project(ws.Projects[0])
		}
		return "", &failure.Error{Code: failure.Ambiguous, Field: "project",
			Message: "the workspace has several projects; name one", Details: map[string]any{"candidates": projectNames(ws)}}
	}
	var hits []ProjectSummary
	for _, p := range ws.Projects {
		if strings.EqualFold(p.Name, spec) || strings.EqualFold(p.Path, spec) {
			hits = append(hits, p)
		}
	}
	switch len(hits) {
	case 1:
		return t.project(hits[0])
	case 0:
		msg := fmt.Sprintf("no project %q in %s", spec, root)
		if near := didYouMean(spec, projectNames(ws)); len(near) > 0 {
			msg += "; did you mean " + strings.Join(near, " or ") + "?"
		}
		return "", &failure.Error{Code: failure.NotFound, Field: "project",
			Message: msg, Details: map[string]any{"candidates": projectNames(ws)}}
	}
	var paths []string
	for _, h := range hits {
		paths = append(paths, h.Path)
	}
	return "", &failure.Error{Code: failure.Ambiguous, Field: "project",
		Message: "several projects are named " + spec, Details: map[string]any{"candidates": paths}}
}

// project returns the absolute path of a listed project that can be read.
func (t *tree) project(p ProjectSummary) (string, error) {
	switch {
	case p.OutsideWorkspace:
		return "", &failure.Error{Code: failure.Precondition, Field: "project",
			Message: fmt.Sprintf("project %s (%s) leads outside the workspace; it is not read", p.Name, p.Path)}
	case !p.Exists:
		return "", &failure.Error{Code: failure.NotFound, Field: "project",
			Message: fmt.Sprintf("project %s is listed in the solution but %s does not exist", p.Name, p.Path)}
	}
	return msbuildPath(t.root, p.Path), nil
}

func projectNames(ws *Workspace) []string {
	var out []string
	for _, p := range ws.Projects {
		out = append(out, p.Name)
	}
	return out
}

func relAll(root string, abs []string) []string {
	var out []string
	for _, a := range abs {
		out = append(out, relSlash(root, filepath.ToSlash(a)))
	}
	return out
}

// ProjectInfo evaluates one project (see resolveProject for spec).
func ProjectInfo(ctx context.Context, root, spec string, opts Options) (*Project, error) {
	t, err := newTree(root)
	if err != nil {
		return nil, err
	}
	abs, err := t.resolveProject(ctx, spec)
	if err != nil {
		return nil, err
	}
	return t.evaluateProject(ctx, abs, opts)
}

// ProjectReferenceGraph is the answer to project_references.
type ProjectReferenceGraph struct {
	Project    string               `json:"project"`
	References []ProjectReferenceAt `json:"references"`
	// Cycles lists reference cycles found, each as a path of projects that
	// starts and ends with the same project.
	Cycles [][]string `json:"cycles,omitempty"`
}

// ProjectReferenceAt is a project reference and where it was found.
type ProjectReferenceAt struct {
	ProjectReference
	Depth        int    `json:"depth"`         // 1 for direct references
	ReferencedBy string `json:"referenced_by"` // path of the referencing project
}

// ProjectReferences lists the project references of spec; with transitive
// it follows them depth-first, visiting each project once and reporting
// cycles instead of looping.
func ProjectReferences(ctx context.Context, root, spec string, transitive bool, opts Options) (*ProjectReferenceGraph, error) {
	t, err := newTree(root)
	if err != nil {
		return nil, err
	}
	root = t.root
	abs, err := t.resolveProject(ctx, spec)
	if err != nil {
		return nil, err
	}
	g := &ProjectReferenceGraph{Project: relSlash(root, abs), References: []ProjectReferenceAt{}}
	visited := map[string]bool{abs: true}
	var stack []string
	var walk func(abs string, o Options, depth int) error
	walk = func(abs string, o Options, depth int) error {
		p, err := t.evaluateProject(ctx, abs, o)
		if err != nil {
			return err
		}
		stack = append(stack, p.Path)
		defer func() { stack = stack[:len(stack)-1] }()
		for _, r := range p.ProjectReferences {
			refAbs := msbuildPath(root, r.Path)
			if i := indexOf(stack, r.Path); i >= 0 {
				cycle := append(append([]string{}, stack[i:]...), r.Path)
				g.Cycles = append(g.Cycles, cycle)
				continue
			}
			if visited[refAbs] {
				continue
			}
			visited[refAbs] = true
			g.References = append(g.References, ProjectReferenceAt{ProjectReference: r, Depth: depth, ReferencedBy: p.Path})
			if transitive && r.Exists {
				// A referenced project picks its own target framework.
				if err := walk(refAbs, Options{Configuration: o.Configuration, Platform: o.Platform}, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(abs, opts, 1); err != nil {
		return nil, err
	}
	return g, nil
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// PackageList is the answer to package_references.
type PackageList struct {
	Project                  string             `json:"project"`
	TargetFramework          string             `json:"target_framework,omitempty"`
	CentralPackageManagement bool               `json:"central_package_management"`
	Packages                 []PackageReference `json:"packages"`
}

// PackageReferences lists the NuGet packages spec depends on directly.
func PackageReferences(ctx context.Context, root, spec string, opts Options) (*PackageList, error) {
	p, err := ProjectInfo(ctx, root, spec, opts)
	if err != nil {
		return nil, err
	}
	return &PackageList{Project: p.Path, TargetFramework: p.TargetFramework,
		CentralPackageManagement: p.CentralPackageManagement, Packages: p.PackageReferences}, nil
}

// SourceFileList is the answer to source_files.
type SourceFileList struct {
	Project         string               `json:"project"`
	TargetFramework string               `json:"target_framework,omitempty"`
	Files           []string             `json:"files"`
	Missing         []string             `json:"missing,omitempty"`
	Unevaluated     []UnevaluatedElement `json:"unevaluated,omitempty"`
}

// SourceFiles lists the evaluated Compile items of spec.
func SourceFiles(ctx context.Context, root, spec string, opts Options) (*SourceFileList, error) {
	p, err := ProjectInfo(ctx, root, spec, opts)
	if err != nil {
		return nil, err
	}
	var unev []UnevaluatedElement
	for _, u := range p.Unevaluated {
		if u.Kind == "Compile" {
			unev = append(unev, u)
		}
	}
	return &SourceFileList{Project: p.Path, TargetFramework: p.TargetFramework,
		Files: p.SourceFiles, Missing: p.MissingSourceFiles, Unevaluated: unev}, nil
}
