package dotnet

import (
	"bufio"
	"bytes"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// SolutionFolderTypeGUID is the project type GUID of a solution folder.
const SolutionFolderTypeGUID = "2150E333-8FDC-42A3-9474-1A3956D46DE8"

// Solution is a parsed .sln or .slnx file.
type Solution struct {
	Path                string            `json:"path"`
	Format              string            `json:"format"` // "sln" or "slnx"
	FormatVersion       string            `json:"format_version,omitempty"`
	VisualStudioVersion string            `json:"visual_studio_version,omitempty"`
	Projects            []SolutionProject `json:"projects"`
	Folders             []SolutionFolder  `json:"folders,omitempty"`
	Configurations      []string          `json:"configurations,omitempty"` // "Debug|Any CPU"
}

// SolutionProject is a project entry of a solution.
type SolutionProject struct {
	Name     string `json:"name"`
	Path     string `json:"path"` // relative to the workspace root
	TypeGUID string `json:"type_guid,omitempty"`
	GUID     string `json:"guid,omitempty"`
	// Folder is the solution folder path, e.g. "/src/Core/", "" at top level.
	Folder string `json:"folder,omitempty"`
	// Dependencies are build-order dependencies (ProjectDependencies),
	// by project name.
	Dependencies []string `json:"dependencies,omitempty"`
	Exists       bool     `json:"exists"`
	// OutsideWorkspace is set when Path leads outside the workspace,
	// directly or through a symlink; the project is not read.
	OutsideWorkspace bool `json:"outside_workspace,omitempty"`
}

// SolutionFolder is a virtual folder of a solution.
type SolutionFolder struct {
	Name string `json:"name"`
	Path string `json:"path"` // full folder path, e.g. "/src/Core/"
	GUID string `json:"guid,omitempty"`
}

var (
	slnProjectRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^Project\("\{([0-9A-Fa-f-]+)\}"\)\s*=\s*"([^"]*)"\s*,\s*"([^"]*)"\s*,\s*"\{([0-9A-Fa-f-]+)\}"`)
	})
	slnPairRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\{([0-9A-Fa-f-]+)\}\s*=\s*\{([0-9A-Fa-f-]+)\}$`) })
)

// ParseSolution parses the solution file at file (absolute, or relative to
// root); root is the workspace root that result paths are made relative to.
// Nothing outside root is read.
func ParseSolution(root, file string) (*Solution, error) {
	t, err := newTree(root)
	if err != nil {
		return nil, err
	}
	return t.parseSolution(t.abs(file))
}

func (t *tree) parseSolution(abs string) (*Solution, error) {
	display := t.rel(abs)
	var sol *Solution
	if strings.EqualFold(path.Ext(abs), ".slnx") {
		doc, err := t.readXML(abs, display)
		if err != nil {
			return nil, err
		}
		if sol, err = parseSlnx(doc, t.root, abs, display); err != nil {
			return nil, err
		}
	} else {
		data, err := t.readFile(abs, "solution "+display)
		if err != nil {
			return nil, err
		}
		if sol, err = parseSln(t.root, abs, display, data); err != nil {
			return nil, err
		}
	}
	for i := range sol.Projects {
		p := &sol.Projects[i]
		k := t.lookup(t.abs(p.Path))
		p.Exists, p.OutsideWorkspace = k == kindFile, k == kindOutside
	}
	return sol, nil
}

// maxFolderDepth bounds solution folder nesting. Visual Studio never gets
// near it; a hostile solution nesting thousands of folders would make every
// folder path, and the answer, quadratically large.
const maxFolderDepth = 64

// maxConfigurations bounds the configurations a .slnx declares as the
// cross product of its build types and platforms.
const maxConfigurations = 4096

type slnEntry struct {
	line                       int
	typeGUID, name, path, guid string
	deps                       []string // GUIDs
}

// parseSln parses the text of a .sln file at abs; it reads nothing, and
// leaves Exists to the caller.
func parseSln(root, abs, display string, data []byte) (*Solution, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	sol := &Solution{Path: display, Format: "sln"}
	var entries []*slnEntry
	nested := map[string]string{} // child GUID -> parent GUID
	var cur *slnEntry
	section := ""
	sawHeader := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			continue
		case strings.HasPrefix(line, "Microsoft Visual Studio Solution File, Format Version "):
			sawHeader = true
			sol.FormatVersion = strings.TrimPrefix(line, "Microsoft Visual Studio Solution File, Format Version ")
		case strings.HasPrefix(line, "VisualStudioVersion"):
			if _, v, ok := strings.Cut(line, "="); ok {
				sol.VisualStudioVersion = strings.TrimSpace(v)
			}
		case strings.HasPrefix(line, "Project(") && !sawHeader:
			return nil, failure.New(failure.InvalidInput, "%s:%d: not a solution file: missing the \"Microsoft Visual Studio Solution File\" header", display, lineNo)
		case strings.HasPrefix(line, "Project("):
			m := slnProjectRE().FindStringSubmatch(line)
			if m == nil {
				return nil, failure.New(failure.InvalidInput, "%s:%d: malformed Project line %q", display, lineNo, line)
			}
			cur = &slnEntry{line: lineNo, typeGUID: strings.ToUpper(m[1]), name: m[2], path: m[3], guid: strings.ToUpper(m[4])}
			entries = append(entries, cur)
		case line == "EndProject":
			cur = nil
		case strings.HasPrefix(line, "ProjectSection(") || strings.HasPrefix(line, "GlobalSection("):
			name := line[strings.IndexByte(line, '(')+1:]
			if i := strings.IndexByte(name, ')'); i >= 0 {
				name = name[:i]
			}
			section = name
		case line == "EndProjectSection" || line == "EndGlobalSection":
			section = ""
		case section == "ProjectDependencies" && cur != nil:
			if m := slnPairRE().FindStringSubmatch(line); m != nil {
				cur.deps = append(cur.deps, strings.ToUpper(m[1]))
			}
		case section == "NestedProjects":
			if m := slnPairRE().FindStringSubmatch(line); m != nil {
				nested[strings.ToUpper(m[1])] = strings.ToUpper(m[2])
			}
		case section == "SolutionConfigurationPlatforms":
			if k, _, ok := strings.Cut(line, "="); ok {
				sol.Configurations = append(sol.Configurations, strings.TrimSpace(k))
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, failure.Wrap(failure.InvalidInput, err, "%s:%d: read solution", display, lineNo)
	}
	if !sawHeader {
		return nil, failure.New(failure.InvalidInput, "%s:1: not a solution file: missing the \"Microsoft Visual Studio Solution File\" header", display)
	}

	byGUID := map[string]*slnEntry{}
	for _, e := range entries {
		byGUID[e.guid] = e
	}
	// folderPath is the full path of the solution folder guid. A nesting
	// cycle ends at the folder where it closes.
	paths := map[string]string{}
	var folderPath func(guid string, depth int) (string, error)
	folderPath = func(guid string, depth int) (string, error) {
		if p, ok := paths[guid]; ok {
			return p, nil
		}
		e, ok := byGUID[guid]
		if !ok {
			return "/", nil // unknown parent
		}
		if depth > maxFolderDepth {
			return "", failure.New(failure.InvalidInput, "%s:%d: solution folders nested more than %d deep (or in a cycle)", display, e.line, maxFolderDepth)
		}
		p := "/" + e.name + "/"
		if parent, ok := nested[guid]; ok {
			pp, err := folderPath(parent, depth+1)
			if err != nil {
				return "", err
			}
			p = pp + e.name + "/"
		}
		paths[guid] = p
		return p, nil
	}
	dir := path.Dir(filepathToSlash(abs))
	for _, e := range entries {
		if e.typeGUID == SolutionFolderTypeGUID {
			fp, err := folderPath(e.guid, 0)
			if err != nil {
				return nil, err
			}
			sol.Folders = append(sol.Folders, SolutionFolder{Name: e.name, Path: fp, GUID: e.guid})
			continue
		}
		p := SolutionProject{Name: e.name, TypeGUID: e.typeGUID, GUID: e.guid}
		p.Path = relSlash(root, msbuildPath(dir, e.path))
		if parent, ok := nested[e.guid]; ok {
			fp, err := folderPath(parent, 0)
			if err != nil {
				return nil, err
			}
			p.Folder = fp
		}
		for _, d := range e.deps {
			if de, ok := byGUID[d]; ok {
				p.Dependencies = append(p.Dependencies, de.name)
			}
		}
		sol.Projects = append(sol.Projects, p)
	}
	sort.Slice(sol.Folders, func(i, j int) bool { return sol.Folders[i].Path < sol.Folders[j].Path })
	return sol, nil
}

// parseSlnx reads the parsed .slnx document doc of the file at abs; it
// reads nothing, and leaves Exists to the caller.
func parseSlnx(doc *element, root, abs, display string) (*Solution, error) {
	if doc.Name != "Solution" {
		return nil, failure.New(failure.InvalidInput, "%s:%d: root element is <%s>, want <Solution>", display, doc.Line, doc.Name)
	}
	sol := &Solution{Path: display, Format: "slnx"}
	dir := path.Dir(filepathToSlash(abs))
	var walk func(el *element, folder string, depth int) error
	walk = func(el *element, folder string, depth int) error {
		for _, c := range el.Children {
			switch c.Name {
			case "Folder":
				if depth >= maxFolderDepth {
					return failure.New(failure.InvalidInput, "%s:%d: solution folders nested more than %d deep", display, c.Line, maxFolderDepth)
				}
				name := c.Attr("Name")
				fp := name
				if !strings.HasPrefix(fp, "/") {
					fp = folder + fp
				}
				if !strings.HasSuffix(fp, "/") {
					fp += "/"
				}
				sol.Folders = append(sol.Folders, SolutionFolder{Name: path.Base(strings.TrimSuffix(fp, "/")), Path: fp})
				if err := walk(c, fp, depth+1); err != nil {
					return err
				}
			case "Project":
				rel := strings.ReplaceAll(c.Attr("Path"), `\`, "/")
				p := SolutionProject{
					Name: strings.TrimSuffix(path.Base(rel), path.Ext(rel)),
					Path: relSlash(root, msbuildPath(dir, rel)),
				}
				if folder != "/" {
					p.Folder = folder
				}
				for _, d := range c.Children {
					if d.Name == "BuildDependency" {
						dep := strings.ReplaceAll(d.Attr("Project"), `\`, "/")
						p.Dependencies = append(p.Dependencies, strings.TrimSuffix(path.Base(dep), path.Ext(dep)))
					}
				}
				sol.Projects = append(sol.Projects, p)
			case "Configurations":
				var builds, platforms []string
				for _, cc := range c.Children {
					switch cc.Name {
					case "BuildType":
						builds = append(builds, cc.Attr("Name"))
					case "Platform":
						platforms = append(platforms, cc.Attr("Name"))
					}
				}
				if max(len(builds), 1)*max(len(platforms), 1)+len(sol.Configurations) > maxConfigurations {
					return failure.New(failure.InvalidInput, "%s:%d: more than %d build type and platform combinations", display, c.Line, maxConfigurations)
				}
				sol.Configurations = append(sol.Configurations, crossConfigurations(builds, platforms)...)
			}
		}
		return nil
	}
	if err := walk(doc, "/", 0); err != nil {
		return nil, err
	}
	if len(sol.Configurations) == 0 {
		// .slnx omits the defaults.
		sol.Configurations = []string{"Debug|Any CPU", "Release|Any CPU"}
	}
	sort.Slice(sol.Folders, func(i, j int) bool { return sol.Folders[i].Path < sol.Folders[j].Path })
	return sol, nil
}

func crossConfigurations(builds, platforms []string) []string {
	if len(builds) == 0 {
		builds = []string{"Debug", "Release"}
	}
	if len(platforms) == 0 {
		platforms = []string{"Any CPU"}
	}
	var out []string
	for _, b := range builds {
		for _, p := range platforms {
			out = append(out, b+"|"+p)
		}
	}
	return out
}
