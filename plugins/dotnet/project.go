package dotnet

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Options selects the build configuration a project is evaluated for.
type Options struct {
	Configuration   string `json:"configuration,omitempty"`    // default "Debug"
	Platform        string `json:"platform,omitempty"`         // default "AnyCPU"
	TargetFramework string `json:"target_framework,omitempty"` // default: the first declared
}

// Project is an evaluated project file.
type Project struct {
	Name             string   `json:"name"`
	Path             string   `json:"path"`
	Style            string   `json:"style"` // "sdk" or "legacy"
	Sdk              string   `json:"sdk,omitempty"`
	ToolsVersion     string   `json:"tools_version,omitempty"`
	Configuration    string   `json:"configuration"`
	Platform         string   `json:"platform"`
	TargetFramework  string   `json:"target_framework,omitempty"` // the one evaluated for
	TargetFrameworks []string `json:"target_frameworks"`
	OutputType       string   `json:"output_type,omitempty"`
	RootNamespace    string   `json:"root_namespace,omitempty"`
	AssemblyName     string   `json:"assembly_name,omitempty"`
	Nullable         string   `json:"nullable,omitempty"`
	LangVersion      string   `json:"lang_version,omitempty"`
	// Imports are the imported files that were read, in order
	// (Directory.Build.props, Directory.Packages.props, explicit imports).
	Imports []string `json:"imports,omitempty"`
	// UnresolvedImports are imports that could not be located, such as
	// SDK targets under $(MSBuildExtensionsPath).
	UnresolvedImports        []string             `json:"unresolved_imports,omitempty"`
	CentralPackageManagement bool                 `json:"central_package_management"`
	ProjectReferences        []ProjectReference   `json:"project_references"`
	PackageReferences        []PackageReference   `json:"package_references"`
	References               []AssemblyReference  `json:"references,omitempty"`
	SourceFiles              []string             `json:"source_files"`
	MissingSourceFiles       []string             `json:"missing_source_files,omitempty"`
	Unevaluated              []UnevaluatedElement `json:"unevaluated,omitempty"`
	// OutsideWorkspace lists the files the project names (imports, source
	// files, project references) that lead outside the workspace, directly
	// or through a symlink. They were not read.
	OutsideWorkspace []OutsideReference `json:"outside_workspace,omitempty"`
}

// OutsideReference is a path a project file names that leads outside the
// workspace.
type OutsideReference struct {
	Kind string `json:"kind"` // Import, Compile, ProjectReference, Directory.Build.props, packages.config, ...
	Path string `json:"path"` // relative to the workspace root (so it starts with ../ or is absolute)
	File string `json:"file"` // the file that names it
	Line int    `json:"line,omitempty"`
}

// ProjectReference is a <ProjectReference> item.
type ProjectReference struct {
	Name      string `json:"name"`
	Path      string `json:"path"`
	Exists    bool   `json:"exists"`
	Condition string `json:"condition,omitempty"`
	// OutsideWorkspace is set when Path leads outside the workspace,
	// directly or through a symlink; the project is not read.
	OutsideWorkspace bool `json:"outside_workspace,omitempty"`
}

// PackageReference is a NuGet package dependency.
type PackageReference struct {
	ID      string `json:"id"`
	Version string `json:"version,omitempty"`
	// VersionSource says where Version came from: "project" (attribute or
	// child element), "central" (Directory.Packages.props), "override"
	// (VersionOverride) or "packages.config"; "" when there is none.
	VersionSource string `json:"version_source,omitempty"`
	PrivateAssets string `json:"private_assets,omitempty"`
	Condition     string `json:"condition,omitempty"`
}

// AssemblyReference is a legacy <Reference> item.
type AssemblyReference struct {
	Name     string `json:"name"`
	Identity string `json:"identity,omitempty"` // full Include text when it has a version
	HintPath string `json:"hint_path,omitempty"`
}

// UnevaluatedElement is a property or item whose condition this evaluator
// could not decide; it was left out of the results above.
type UnevaluatedElement struct {
	Kind      string `json:"kind"` // item type ("Compile", ...) or "Property"
	Name      string `json:"name"` // Include value or property name
	Condition string `json:"condition"`
	File      string `json:"file"`
	Line      int    `json:"line"`
}

// EvaluateProject evaluates the project file at abs (absolute, or relative
// to root) for opts. root is the workspace root: result paths are relative
// to it, the search for Directory.Build.props stops there, and nothing
// outside it is read.
func EvaluateProject(ctx context.Context, root, abs string, opts Options) (*Project, error) {
	t, err := newTree(root)
	if err != nil {
		return nil, err
	}
	return t.evaluateProject(ctx, t.abs(abs), opts)
}

func (t *tree) evaluateProject(ctx context.Context, abs string, opts Options) (*Project, error) {
	p, err := evaluate(ctx, t, abs, opts)
	if err != nil {
		return nil, err
	}
	if opts.TargetFramework == "" && p.TargetFramework == "" && len(p.TargetFrameworks) > 0 {
		// A multi-targeting project: evaluate the inner build of the first
		// framework, as an IDE does for its default context.
		opts.TargetFramework = p.TargetFrameworks[0]
		return evaluate(ctx, t, abs, opts)
	}
	return p, nil
}

type evaluator struct {
	ctx     context.Context
	t       *tree
	root    string // t.root
	props   *properties
	groups  []itemGroup // collected in pass 1, evaluated in pass 2
	proj    *Project
	seen    map[string]bool // imported files, to stop import cycles
	central map[string]string
}

type itemGroup struct {
	el   *element
	file string // display path
	dir  string // directory of the file the group is in
}

func evaluate(ctx context.Context, t *tree, abs string, opts Options) (*Project, error) {
	root := t.root
	display := relSlash(root, abs)
	doc, err := t.readXML(abs, display)
	if err != nil {
		return nil, err
	}
	if doc.Name != "Project" {
		return nil, failure.New(failure.InvalidInput, "%s:%d: root element is <%s>, want <Project>", display, doc.Line, doc.Name)
	}
	dir := path.Dir(abs)
	name := strings.TrimSuffix(path.Base(abs), path.Ext(abs))
	global := map[string]string{
		"Configuration": cmp(opts.Configuration, "Debug"),
		"Platform":      cmp(opts.Platform, "AnyCPU"),
	}
	if opts.TargetFramework != "" {
		global["TargetFramework"] = opts.TargetFramework
	}
	e := &evaluator{
		ctx:     ctx,
		t:       t,
		root:    root,
		props:   newProperties(global),
		proj:    &Project{Name: name, Path: display},
		seen:    map[string]bool{abs: true},
		central: map[string]string{},
	}
	for k, v := range map[string]string{
		"MSBuildProjectName":      name,
		"MSBuildProjectFile":      path.Base(abs),
		"MSBuildProjectExtension": path.Ext(abs),
		"MSBuildProjectDirectory": dir,
		"MSBuildProjectFullPath":  abs,
		"SolutionDir":             root + "/",
	} {
		e.props.set(k, v)
	}
	p := e.proj
	p.Configuration = e.props.get("Configuration")
	p.Platform = e.props.get("Platform")
	p.Sdk = doc.Attr("Sdk")
	if p.Sdk == "" {
		for _, c := range doc.Children {
			if c.Name == "Sdk" || (c.Name == "Import" && c.Attr("Sdk") != "") {
				p.Sdk = cmp(c.Attr("Name"), c.Attr("Sdk"))
				break
			}
		}
	}
	p.ToolsVersion = doc.Attr("ToolsVersion")
	p.Style = "legacy"
	if p.Sdk != "" {
		p.Style = "sdk"
	}

	// MSBuild order: Directory.Build.props (via SDK or Microsoft.Common
	// props), Directory.Packages.props, the project body.
	for _, name := range []string{"Directory.Build.props", "Directory.Packages.props"} {
		f := t.findFileAbove(dir, name)
		if f == "" || e.seen[f] {
			continue
		}
		if e.t.lookup(f) == kindOutside {
			e.outside(name, f, display, 0)
			continue
		}
		if err := e.importFile(f); err != nil {
			return nil, err
		}
	}
	if err := e.passOne(doc, abs); err != nil {
		return nil, err
	}
	e.finishProperties()
	if err := e.passTwo(abs); err != nil {
		return nil, err
	}
	if err := e.readPackagesConfig(dir); err != nil {
		return nil, err
	}
	return p, nil
}

func cmp(v, def string) string {
	if v != "" {
		return v
	}
	return def
}

// findFileAbove looks for name in dir and its parents inside the
// workspace, stopping at the root. It returns the first path that exists,
// even one that leads outside through a symlink, as MSBuild would pick it;
// callers check.
func (t *tree) findFileAbove(dir, name string) string {
	for dir == t.root || strings.HasPrefix(dir, t.root+"/") {
		f := dir + "/" + name
		if k := t.lookup(f); k == kindFile || k == kindOutside {
			return f
		}
		if dir == t.root {
			break
		}
		dir = path.Dir(dir)
	}
	return ""
}

// outside records a path the project names that leads outside the
// workspace and is therefore not read.
func (e *evaluator) outside(kind, abs, file string, line int) {
	e.proj.OutsideWorkspace = append(e.proj.OutsideWorkspace, OutsideReference{Kind: kind, Path: relSlash(e.root, abs), File: file, Line: line})
}

func (e *evaluator) importFile(abs string) error {
	if e.seen[abs] {
		return nil
	}
	e.seen[abs] = true
	display := relSlash(e.root, abs)
	doc, err := e.t.readXML(abs, display)
	if err != nil {
		return err
	}
	e.proj.Imports = append(e.proj.Imports, display)
	return e.passOne(doc, abs)
}

// passOne evaluates properties and imports in document order and collects
// item groups for passTwo, as MSBuild evaluates properties before items.
func (e *evaluator) passOne(doc *element, file string) error {
	if err := e.ctx.Err(); err != nil {
		return err
	}
	dir := path.Dir(file)
	display := relSlash(e.root, file)
	e.props.set("MSBuildThisFileDirectory", dir+"/")
	e.props.set("MSBuildThisFile", path.Base(file))
	for _, c := range doc.Children {
		switch c.Name {
		case "PropertyGroup":
			ok, err := evalCondition(c.Attr("Condition"), e.props, dir, e.t)
			if err != nil {
				e.unevaluated("Property", "PropertyGroup", c, display)
				continue
			}
			if !ok {
				continue
			}
			for _, pc := range c.Children {
				ok, err := evalCondition(pc.Attr("Condition"), e.props, dir, e.t)
				if err != nil {
					e.unevaluated("Property", pc.Name, pc, display)
					continue
				}
				if !ok {
					continue
				}
				v, err := e.props.expand(strings.TrimSpace(pc.Text))
				if err != nil {
					e.unevaluated("Property", pc.Name, pc, display)
					continue
				}
				e.props.set(pc.Name, v)
			}
		case "ItemGroup":
			e.groups = append(e.groups, itemGroup{el: c, file: display, dir: dir})
		case "Import", "ImportGroup":
			if err := e.evalImport(c, dir, display); err != nil {
				return err
			}
			// Restore this file's reserved properties after the import.
			e.props.set("MSBuildThisFileDirectory", dir+"/")
			e.props.set("MSBuildThisFile", path.Base(file))
		case "Choose":
			e.unevaluated("Choose", "Choose", c, display)
		}
	}
	return nil
}

func (e *evaluator) evalImport(c *element, dir, display string) error {
	ok, err := evalCondition(c.Attr("Condition"), e.props, dir, e.t)
	if err != nil {
		e.unevaluated("Import", c.Attr("Project"), c, display)
		return nil
	}
	if !ok {
		return nil
	}
	if c.Name == "ImportGroup" {
		for _, ic := range c.Children {
			if ic.Name == "Import" {
				if err := e.evalImport(ic, dir, display); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if c.Attr("Sdk") != "" {
		return nil // SDK props/targets are implied by Style "sdk"
	}
	spec := c.Attr("Project")
	target := ""
	if m := getPathOfFileAbove().FindStringSubmatch(strings.TrimSpace(spec)); m != nil {
		start := dir
		if m[2] != "" {
			if s, err := e.props.expand(m[2]); err == nil {
				start = msbuildPath(dir, s)
			}
		}
		target = e.t.findFileAbove(start, m[1])
	} else if v, err := e.props.expand(spec); err == nil && v != "" && !hasWildcard(v) {
		target = msbuildPath(dir, v)
	}
	switch k := e.t.lookup(target); {
	case k == kindOutside && e.t.present(target):
		e.outside("Import", target, display, c.Line)
		return nil
	case k != kindFile:
		// Also SDK targets under an undefined $(MSBuildToolsPath) and
		// the like, which resolve to paths outside that do not exist.
		e.proj.UnresolvedImports = append(e.proj.UnresolvedImports, spec)
		return nil
	}
	return e.importFile(target)
}

func (e *evaluator) unevaluated(kind, name string, el *element, file string) {
	e.proj.Unevaluated = append(e.proj.Unevaluated, UnevaluatedElement{
		Kind: kind, Name: name, Condition: el.Attr("Condition"), File: file, Line: el.Line,
	})
}

func (e *evaluator) finishProperties() {
	p, props := e.proj, e.props
	if p.Style == "sdk" {
		props.setDefault("AssemblyName", p.Name)
		props.setDefault("RootNamespace", p.Name)
		props.setDefault("OutputType", "Library")
	}
	p.TargetFramework = props.get("TargetFramework")
	for _, tf := range strings.Split(props.get("TargetFrameworks"), ";") {
		if tf = strings.TrimSpace(tf); tf != "" {
			p.TargetFrameworks = append(p.TargetFrameworks, tf)
		}
	}
	if len(p.TargetFrameworks) == 0 && p.TargetFramework != "" {
		p.TargetFrameworks = []string{p.TargetFramework}
	}
	if v := props.get("TargetFrameworkVersion"); v != "" && len(p.TargetFrameworks) == 0 {
		// Legacy projects say v4.7.2; report the moniker, net472.
		tfm := "net" + strings.ReplaceAll(strings.TrimPrefix(strings.ToLower(v), "v"), ".", "")
		p.TargetFramework = tfm
		p.TargetFrameworks = []string{tfm}
	}
	if p.TargetFrameworks == nil {
		p.TargetFrameworks = []string{}
	}
	p.OutputType = props.get("OutputType")
	p.RootNamespace = props.get("RootNamespace")
	p.AssemblyName = props.get("AssemblyName")
	p.Nullable = props.get("Nullable")
	p.LangVersion = props.get("LangVersion")
	p.CentralPackageManagement = strings.EqualFold(props.get("ManagePackageVersionsCentrally"), "true")
}

// passTwo evaluates the collected item groups with the final properties.
func (e *evaluator) passTwo(projAbs string) error {
	p := e.proj
	projDir := path.Dir(projAbs)
	compile := newFileSet()
	isFalse := func(name string) bool { return strings.EqualFold(e.props.get(name), "false") }
	if p.Style == "sdk" && !isFalse("EnableDefaultItems") && !isFalse("EnableDefaultCompileItems") {
		excludes := []string{
			msbuildPath(projDir, cmp(e.props.get("BaseOutputPath"), "bin")) + "/**",
			msbuildPath(projDir, cmp(e.props.get("BaseIntermediateOutputPath"), "obj")) + "/**",
			projDir + "/**/.*/**",
		}
		for _, x := range splitList(e.props.get("DefaultItemExcludes")) {
			excludes = append(excludes, msbuildPath(projDir, x))
		}
		files, out := e.t.globFiles(projDir + "/**/*.cs")
		for _, o := range out {
			e.outside("Compile", o, p.Path, 0)
		}
		compile.add(files, excludes)
	}

	var (
		projRefs []ProjectReference
		pkgs     []PackageReference
		refs     []AssemblyReference
	)
	for _, g := range e.groups {
		if err := e.ctx.Err(); err != nil {
			return err
		}
		groupCond := g.el.Attr("Condition")
		ok, err := evalCondition(groupCond, e.props, g.dir, e.t)
		if err != nil {
			for _, it := range g.el.Children {
				e.proj.Unevaluated = append(e.proj.Unevaluated, UnevaluatedElement{
					Kind: it.Name, Name: cmp(it.Attr("Include"), it.Attr("Remove")), Condition: groupCond, File: g.file, Line: it.Line,
				})
			}
			continue
		}
		if !ok {
			continue
		}
		for _, it := range g.el.Children {
			cond := joinConditions(groupCond, it.Attr("Condition"))
			ok, err := evalCondition(it.Attr("Condition"), e.props, g.dir, e.t)
			if err != nil {
				e.proj.Unevaluated = append(e.proj.Unevaluated, UnevaluatedElement{
					Kind: it.Name, Name: cmp(it.Attr("Include"), it.Attr("Remove")), Condition: it.Attr("Condition"), File: g.file, Line: it.Line,
				})
				continue
			}
			if !ok {
				continue
			}
			include, errI := e.props.expand(it.Attr("Include"))
			remove, errR := e.props.expand(it.Attr("Remove"))
			exclude, errX := e.props.expand(it.Attr("Exclude"))
			if errI != nil || errR != nil || errX != nil {
				e.proj.Unevaluated = append(e.proj.Unevaluated, UnevaluatedElement{
					Kind: it.Name, Name: cmp(it.Attr("Include"), it.Attr("Remove")), Condition: cond, File: g.file, Line: it.Line,
				})
				continue
			}
			switch it.Name {
			case "Compile":
				var excl []string
				for _, x := range splitList(exclude) {
					excl = append(excl, msbuildPath(g.dir, x))
				}
				for _, inc := range splitList(include) {
					abs := msbuildPath(g.dir, inc)
					files, out := e.t.globFiles(abs)
					for _, o := range out {
						e.outside("Compile", o, g.file, it.Line)
					}
					if !hasWildcard(abs) && len(files) == 0 && len(out) == 0 {
						p.MissingSourceFiles = append(p.MissingSourceFiles, relSlash(e.root, abs))
						continue
					}
					compile.add(files, excl)
				}
				for _, rm := range splitList(remove) {
					compile.remove(msbuildPath(g.dir, rm))
				}
			case "ProjectReference":
				for _, inc := range splitList(include) {
					abs := msbuildPath(g.dir, inc)
					k := e.t.lookup(abs)
					if k == kindOutside {
						e.outside("ProjectReference", abs, g.file, it.Line)
					}
					projRefs = append(projRefs, ProjectReference{
						Name:             strings.TrimSuffix(path.Base(abs), path.Ext(abs)),
						Path:             relSlash(e.root, abs),
						Exists:           k == kindFile,
						Condition:        cond,
						OutsideWorkspace: k == kindOutside,
					})
				}
				for _, rm := range splitList(remove) {
					abs := relSlash(e.root, msbuildPath(g.dir, rm))
					projRefs = deleteFunc(projRefs, func(r ProjectReference) bool { return r.Path == abs })
				}
			case "PackageReference":
				version := e.metadata(it, "Version")
				override := e.metadata(it, "VersionOverride")
				if update := it.Attr("Update"); update != "" {
					for i := range pkgs {
						if strings.EqualFold(pkgs[i].ID, update) && version != "" {
							pkgs[i].Version, pkgs[i].VersionSource = version, "project"
						}
					}
				}
				for _, id := range splitList(include) {
					ref := PackageReference{ID: id, PrivateAssets: e.metadata(it, "PrivateAssets"), Condition: cond}
					switch {
					case override != "":
						ref.Version, ref.VersionSource = override, "override"
					case version != "":
						ref.Version, ref.VersionSource = version, "project"
					}
					pkgs = append(pkgs, ref)
				}
				for _, rm := range splitList(remove) {
					pkgs = deleteFunc(pkgs, func(r PackageReference) bool { return strings.EqualFold(r.ID, rm) })
				}
			case "PackageVersion":
				for _, id := range splitList(include) {
					e.central[strings.ToLower(id)] = e.metadata(it, "Version")
				}
			case "Reference":
				for _, inc := range splitList(include) {
					name, _, hasIdentity := strings.Cut(inc, ",")
					ref := AssemblyReference{Name: strings.TrimSpace(name)}
					if hasIdentity {
						ref.Identity = inc
					}
					if hp := e.metadata(it, "HintPath"); hp != "" {
						ref.HintPath = relSlash(e.root, msbuildPath(g.dir, hp))
					}
					refs = append(refs, ref)
				}
			}
		}
	}
	if p.CentralPackageManagement {
		for i := range pkgs {
			if pkgs[i].VersionSource == "" {
				if v, ok := e.central[strings.ToLower(pkgs[i].ID)]; ok {
					pkgs[i].Version, pkgs[i].VersionSource = v, "central"
				}
			}
		}
	}
	p.SourceFiles = compile.sorted(e.root)
	p.ProjectReferences = nonNil(projRefs)
	p.PackageReferences = nonNil(pkgs)
	p.References = refs
	return nil
}

// metadata reads item metadata given as an attribute or a child element.
func (e *evaluator) metadata(it *element, name string) string {
	v, ok := it.lookupAttr(name)
	if !ok {
		if c := it.child(name); c != nil {
			v = strings.TrimSpace(c.Text)
		}
	}
	if x, err := e.props.expand(v); err == nil {
		return x
	}
	return v
}

func (e *evaluator) readPackagesConfig(dir string) error {
	f := dir + "/packages.config"
	switch e.t.lookup(f) {
	case kindFile:
	case kindOutside:
		e.outside("packages.config", f, e.proj.Path, 0)
		return nil
	default:
		return nil
	}
	display := relSlash(e.root, f)
	doc, err := e.t.readXML(f, display)
	if err != nil {
		return err
	}
	e.proj.Imports = append(e.proj.Imports, display)
	for _, c := range doc.Children {
		if c.Name == "package" {
			e.proj.PackageReferences = append(e.proj.PackageReferences, PackageReference{
				ID: c.Attr("id"), Version: c.Attr("version"), VersionSource: "packages.config",
			})
		}
	}
	return nil
}

func joinConditions(a, b string) string {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return fmt.Sprintf("(%s) and (%s)", a, b)
}

func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ";") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

func deleteFunc[T any](s []T, del func(T) bool) []T {
	out := s[:0]
	for _, v := range s {
		if !del(v) {
			out = append(out, v)
		}
	}
	return out
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// fileSet is an insertion-ordered set of absolute slash paths.
type fileSet struct{ files map[string]bool }

func newFileSet() *fileSet { return &fileSet{files: map[string]bool{}} }

func (s *fileSet) add(files, excludes []string) {
next:
	for _, f := range files {
		for _, x := range excludes {
			if matchGlob(x, f) {
				continue next
			}
		}
		s.files[f] = true
	}
}

func (s *fileSet) remove(pattern string) {
	for f := range s.files {
		if matchGlob(pattern, f) {
			delete(s.files, f)
		}
	}
}

func (s *fileSet) sorted(root string) []string {
	out := make([]string, 0, len(s.files))
	for f := range s.files {
		out = append(out, relSlash(root, f))
	}
	sort.Strings(out)
	return out
}
