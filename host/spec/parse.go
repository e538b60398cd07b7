package spec

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/langhost/langhost/internal/textdist"
	"github.com/langhost/langhost/parsers"
	"go.yaml.in/yaml/v3"
)

// Parse decodes and validates one spec file. name is used in messages. On
// failure the error is a *FileError listing every problem found.
func Parse(name string, data []byte) (*File, error) {
	fe := &FileError{File: name}
	report := func(n *yaml.Node, field, msg string) {
		p := Problem{File: name, Field: field, Message: msg}
		if n != nil {
			p.Line, p.Column = n.Line, n.Column
		}
		fe.Problems = append(fe.Problems, p)
	}

	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		fe.Problems = append(fe.Problems, syntaxProblem(name, data, err))
		return nil, fe
	}
	if len(doc.Content) == 0 {
		report(nil, "", "empty file: expected a language spec")
		return nil, fe
	}
	root := doc.Content[0]
	checkStructure(root, reflect.TypeFor[File](), "", report)
	if len(fe.Problems) > 0 {
		return nil, fe
	}
	var f File
	if err := root.Decode(&f); err != nil {
		report(root, "", err.Error())
		return nil, fe
	}
	f.Source = name
	validate(&f, root, report)
	if len(fe.Problems) > 0 {
		return nil, fe
	}
	return &f, nil
}

var languageID = regexp.MustCompile(`^[a-z][a-z0-9_+#-]*$`)

// validate checks what the structure walk cannot: required fields, ranges,
// cross references, and that regexes and parsers compile.
func validate(f *File, root *yaml.Node, report func(*yaml.Node, string, string)) {
	at := func(path ...string) *yaml.Node { return lookup(root, path...) }

	switch {
	case f.Language.ID == "":
		report(orNode(at("language"), root), "language.id", "missing required field")
	case !languageID.MatchString(f.Language.ID):
		report(at("language", "id"), "language.id", fmt.Sprintf("%q is not a valid id: use lower-case letters, digits, _ or -", f.Language.ID))
	}
	if len(f.Tools) == 0 && f.Semantic == nil {
		report(orNode(at("tools"), root), "tools", "no tools defined: a spec needs at least one tool or a semantic block")
	}

	f.ToolOrder = mapKeys(at("tools"))
	ids := map[string]string{}
	for _, key := range f.ToolOrder {
		t := f.Tools[key]
		path := "tools." + key
		if t == nil {
			report(at("tools", key), path, "empty tool definition")
			continue
		}
		t.Key = key
		if t.ID == "" {
			t.ID = f.Language.ID + "." + key
		}
		if f.Language.ID != "" && !strings.HasPrefix(t.ID, f.Language.ID+".") {
			// The prefix makes ids unique across languages and lets the host
			// find a tool's spec without loading every spec.
			report(orNode(at("tools", key, "id"), at("tools", key)), path+".id",
				fmt.Sprintf("tool id %q must start with the language id: %s.<name>", t.ID, f.Language.ID))
		}
		if prev, dup := ids[t.ID]; dup {
			report(orNode(at("tools", key, "id"), at("tools", key)), path+".id", fmt.Sprintf("tool id %q already used by tools.%s", t.ID, prev))
		}
		ids[t.ID] = key
		validateTool(t, path, lookup(root, "tools", key), report)
	}

	if s := f.Semantic; s != nil {
		if s.Command == "" {
			report(orNode(at("semantic", "command"), at("semantic")), "semantic.command", "missing required field")
		}
		switch s.Dialect {
		case "", "standard", "roslyn":
		default:
			report(at("semantic", "dialect"), "semantic.dialect", fmt.Sprintf("unknown dialect %q (want standard or roslyn)", s.Dialect))
		}
		if s.Fallback != nil && s.Fallback.Command == "" {
			report(at("semantic", "fallback"), "semantic.fallback.command", "missing required field")
		}
	}
}

var inputTypes = []string{"string", "path", "integer", "number", "boolean", "array"}

// standardInputs are the inputs placed by projectArg, pathArg, scriptArg and
// configArg; an inputs entry with their name only adds metadata.
var standardInputs = []string{"project", "path", "script", "configuration"}

func validateTool(t *Tool, path string, node *yaml.Node, report func(*yaml.Node, string, string)) {
	// at locates a field for a message, falling back to the tool itself.
	at := func(field ...string) *yaml.Node { return orNode(lookup(node, field...), node) }
	if t.Command == "" {
		report(at("command"), path+".command", "missing required field")
	} else if strings.ContainsAny(t.Command, " \t") && !strings.ContainsAny(t.Command, "/\\") {
		report(at("command"), path+".command", fmt.Sprintf("command %q contains spaces: put the executable in command and the rest in args (commands never run through a shell)", t.Command))
	}
	if t.Fallback != nil && t.Fallback.Command == "" {
		report(at("fallback"), path+".fallback.command", "missing required field")
	}
	for _, pos := range []struct {
		name string
		v    *int
	}{{"projectArg", t.ProjectArg}, {"pathArg", t.PathArg}, {"scriptArg", t.ScriptArg}} {
		if pos.v == nil {
			continue
		}
		checkPosition(*pos.v, t, at(pos.name), path+"."+pos.name, report)
	}
	if len(t.ConfigArg) > 1 {
		report(at("configArg"), path+".configArg", "expected at most one flag, e.g. [--configuration]")
	}
	if t.Version != nil && t.Version.Regex != "" {
		if _, err := regexp.Compile(t.Version.Regex); err != nil {
			report(at("version", "regex"), path+".version.regex", fmt.Sprintf("invalid regex: %v", err))
		}
	}

	t.InputOrder = mapKeys(lookup(node, "inputs"))
	for _, name := range t.InputOrder {
		in := t.Inputs[name]
		ip := path + ".inputs." + name
		if in == nil {
			report(at("inputs", name), ip, "empty input definition")
			continue
		}
		if in.Type != "" && !contains(inputTypes, in.Type) {
			msg := fmt.Sprintf("unknown type %q (want one of %s)", in.Type, strings.Join(inputTypes, ", "))
			if s := textdist.Closest(in.Type, inputTypes); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			report(at("inputs", name, "type"), ip+".type", msg)
		}
		if contains(standardInputs, name) {
			continue
		}
		if in.Flag == "" && in.Arg == nil {
			report(at("inputs", name), ip, "input needs flag or arg to say where its value goes")
		}
		if in.Arg != nil {
			checkPosition(*in.Arg, t, at("inputs", name, "arg"), ip+".arg", report)
		}
	}

	t.Parsers = make(map[string]*parsers.Parser, len(t.OutputParsers))
	for _, name := range mapKeys(lookup(node, "outputParsers")) {
		p, err := parsers.Compile(name, t.OutputParsers[name])
		if err != nil {
			var fe *parsers.FieldError
			field, msg := "", err.Error()
			if errors.As(err, &fe) {
				field, msg = fe.Field, fe.Err.Error()
			}
			n := at("outputParsers", name)
			if field != "" {
				n = orNode(lookup(n, field), n)
			}
			report(n, join(path+".outputParsers."+name, field), msg)
			continue
		}
		t.Parsers[name] = p
	}
}

func checkPosition(pos int, t *Tool, n *yaml.Node, field string, report func(*yaml.Node, string, string)) {
	if pos < -1 || pos > len(t.Args) {
		report(n, field, fmt.Sprintf("position %d out of range: args has %d elements, so use -1..%d", pos, len(t.Args), len(t.Args)))
		return
	}
	if t.Fallback != nil && pos > len(t.Fallback.Args) {
		report(n, field, fmt.Sprintf("position %d out of range for fallback.args (%d elements)", pos, len(t.Fallback.Args)))
	}
}

// lookup follows mapping keys from n; it returns the value node, or nil.
func lookup(n *yaml.Node, path ...string) *yaml.Node {
	for _, key := range path {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				next = n.Content[i+1]
				break
			}
		}
		n = next
	}
	return n
}

func mapKeys(n *yaml.Node) []string {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	keys := make([]string, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		keys = append(keys, n.Content[i].Value)
	}
	return keys
}

func orNode(n, fallback *yaml.Node) *yaml.Node {
	if n != nil {
		return n
	}
	return fallback
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

var yamlLine = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)

// syntaxProblem turns a yaml.v3 parse error into a located Problem. A tab in
// indentation gets its own message: yaml.v3 reports it confusingly.
func syntaxProblem(name string, data []byte, err error) Problem {
	p := Problem{File: name, Message: err.Error()}
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		p.Line, _ = strconv.Atoi(m[1])
		p.Message = "invalid YAML: " + m[2]
	}
	if off := tabIndentOffset(data); off >= 0 {
		line, col := position(data, off)
		if p.Line == 0 || p.Line == line {
			p.Line, p.Column = line, col
			p.Message = "invalid YAML: tab character used for indentation (YAML allows only spaces)"
		}
	}
	return p
}

// tabIndentOffset returns the offset of the first tab in a line's leading
// whitespace, or -1.
func tabIndentOffset(data []byte) int {
	lineStart := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '\n':
			lineStart = i + 1
		case '\t':
			if strings.TrimLeft(string(data[lineStart:i]), " ") == "" {
				return i
			}
		}
	}
	return -1
}

func position(data []byte, off int) (line, col int) {
	line = 1 + bytes.Count(data[:off], []byte("\n"))
	col = off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}
