package spec

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/langhost/langhost/internal/textdist"
	"github.com/langhost/langhost/parsers"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"go.yaml.in/yaml/v3"
)

// maxProblems caps the problems reported for one file: a hostile or
// mangled file can have one per line, and nobody reads past the first
// screenful.
const maxProblems = 100

// Parse decodes and validates one spec file. name is used in messages. On
// failure the error is a *FileError listing every problem found, each at
// its line and column: unknown fields, wrong types, missing fields and
// invalid regexes of one file are all reported together.
func Parse(name string, data []byte) (f *File, err error) {
	fe := &FileError{File: name}
	more := 0
	reported := map[*yaml.Node]bool{}
	report := func(n *yaml.Node, field, msg string) {
		if n != nil {
			reported[n] = true
		}
		if len(fe.Problems) >= maxProblems {
			more++
			return
		}
		p := Problem{File: name, Field: field, Message: msg}
		if n != nil {
			p.Line, p.Column = n.Line, n.Column
		}
		fe.Problems = append(fe.Problems, p)
	}
	failed := func() error {
		if more > 0 {
			fe.Problems = append(fe.Problems, Problem{File: name, Message: fmt.Sprintf("%d more problems not shown", more)})
		}
		return fe
	}
	defer func() {
		// A panic in the YAML library must cost one file, not the host.
		if v := recover(); v != nil {
			f, err = nil, &FileError{File: name, Problems: []Problem{{File: name, Message: fmt.Sprintf("cannot parse: %v", v)}}}
		}
	}()

	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		fe.Problems = append(fe.Problems, syntaxProblem(name, data, err))
		return nil, fe
	}
	if len(doc.Content) == 0 {
		report(nil, "", "empty file: expected a language spec")
		return nil, fe
	}
	// Before anything expands aliases.
	if n, msg := checkAliases(&doc); n != nil {
		report(n, "", msg)
		return nil, fe
	}
	root := doc.Content[0]
	checkStructure(root, reflect.TypeFor[File](), "", report)
	var out File
	decodeNode(root, reflect.ValueOf(&out).Elem(), "", reported, report)
	out.Source = name
	// Values found wrong so far decode as zero; validate must not report
	// them again as missing.
	bad := maps.Clone(reported)
	validate(&out, root, func(n *yaml.Node, field, msg string) {
		if n == nil || !bad[n] {
			report(n, field, msg)
		}
	})
	if len(fe.Problems) > 0 {
		return nil, failed()
	}
	return &out, nil
}

var languageID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9_+#-]*$`) })

// validate checks what the structure walk cannot: required fields, ranges,
// cross references, and that regexes and parsers compile.
func validate(f *File, root *yaml.Node, report func(*yaml.Node, string, string)) {
	at := func(path ...string) *yaml.Node { return lookup(root, path...) }

	switch {
	case f.Language.ID == "":
		report(orNode(at("language", "id"), at("language"), root), "language.id", "missing required field")
	case !languageID().MatchString(f.Language.ID):
		report(at("language", "id"), "language.id", fmt.Sprintf("%q is not a valid id: use lower-case letters, digits, _ or -", f.Language.ID))
	}
	if len(f.Tools) == 0 && f.Semantic == nil {
		report(orNode(at("tools"), root), "tools", "no tools defined: a spec needs at least one tool or a semantic block")
	}

	// Mappings are walked pair by pair, never looked up key by key: a spec
	// with thousands of tools or inputs must not cost quadratic time.
	tools := entries(at("tools"))
	f.ToolOrder = make([]string, len(tools))
	ids := map[string]string{}
	for i, e := range tools {
		key, node := e.key, e.value
		f.ToolOrder[i] = key
		t := f.Tools[key]
		path := "tools." + key
		if t == nil {
			report(node, path, "empty tool definition")
			continue
		}
		t.Key = key
		if t.ID == "" {
			t.ID = f.Language.ID + "." + key
		}
		if f.Language.ID != "" && !strings.HasPrefix(t.ID, f.Language.ID+".") {
			// The prefix makes ids unique across languages and lets the host
			// find a tool's spec without loading every spec.
			report(orNode(lookup(node, "id"), node), path+".id",
				fmt.Sprintf("tool id %q must start with the language id: %s.<name>", t.ID, f.Language.ID))
		}
		if prev, dup := ids[t.ID]; dup {
			report(orNode(lookup(node, "id"), node), path+".id", fmt.Sprintf("tool id %q already used by tools.%s", t.ID, prev))
		}
		ids[t.ID] = key
		validateTool(t, path, node, report)
	}

	validateServers(f, root, report)
	if f.Gate != "" && f.GateTool() == nil {
		report(at("gate"), "gate", unknownGate(f.Gate, f.ToolOrder))
	}
	if !diagnostic.ValidPacket(f.Packet) {
		report(at("packet"), "packet", fmt.Sprintf("unknown packet %q: use raw, compact or guided", f.Packet))
	}
}

// unknownGate explains a gate that names no tool of the spec.
func unknownGate(name string, keys []string) string {
	msg := fmt.Sprintf("gate %q is not a tool of this spec", name)
	if c := textdist.Closest(name, slices.Sorted(slices.Values(keys))); c != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", c)
	}
	if len(keys) == 0 {
		return msg + "; it has no tools"
	}
	return msg + "; its tools are " + strings.Join(keys, ", ")
}

var serverName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]*$`) })

// validateServers checks the servers table and the semantic block, and
// resolves the block's candidate servers.
func validateServers(f *File, root *yaml.Node, report func(*yaml.Node, string, string)) {
	table := entries(lookup(root, "servers"))
	names := make([]string, 0, len(table))
	for _, e := range table {
		path := "servers." + e.key
		names = append(names, e.key)
		srv := f.Servers[e.key]
		if srv == nil {
			report(e.value, path, "empty server definition")
			continue
		}
		if !serverName().MatchString(e.key) {
			report(keyNode(lookup(root, "servers"), e.key), path, fmt.Sprintf("%q is not a valid server name: use letters, digits, ., _, + or -", e.key))
		}
		srv.Name = e.key
		validateServer(srv, path, e.value, report)
	}

	s := f.Semantic
	if s == nil {
		return
	}
	node := lookup(root, "semantic")
	at := func(field ...string) *yaml.Node { return orNode(lookup(node, field...), node) }
	if len(s.Servers) == 0 {
		if s.Command == "" {
			report(at("servers"), "semantic.servers", "missing required field: name the servers of the servers table this language uses, in order of preference (or describe one server inline with command)")
			return
		}
		validateServer(&s.Server, "semantic", node, report)
		if s.Fallback != nil && s.Fallback.Command == "" {
			report(at("fallback"), "semantic.fallback.command", "missing required field")
		}
		s.Candidates = inlineCandidates(s)
		return
	}

	// With servers, the inline form's fields would be ignored: say so.
	inlineKeys := yamlFields(reflect.TypeFor[Server]())
	for _, e := range entries(node) {
		if _, ok := inlineKeys[e.key]; ok || e.key == "fallback" {
			report(keyNode(node, e.key), "semantic."+e.key, fmt.Sprintf("%s describes an inline server; with semantic.servers, set it in the servers table entry", e.key))
		}
	}
	list := lookup(node, "servers")
	seen := map[string]bool{}
	for i, name := range s.Servers {
		var n *yaml.Node
		if list != nil && list.Kind == yaml.SequenceNode && i < len(list.Content) {
			n = list.Content[i]
		}
		field := fmt.Sprintf("semantic.servers[%d]", i)
		switch srv := f.Servers[name]; {
		case seen[name]:
			report(n, field, fmt.Sprintf("server %q is listed twice", name))
		case !slices.Contains(names, name):
			report(n, field, unknownServer(name, names))
		case srv != nil: // else a definition reported above
			s.Candidates = append(s.Candidates, srv)
		}
		seen[name] = true
	}
}

// unknownServer explains a name missing from the servers table.
func unknownServer(name string, known []string) string {
	if len(known) == 0 {
		return fmt.Sprintf("unknown server %q: the spec has no servers table (describe it under servers: at the top level)", name)
	}
	known = slices.Sorted(slices.Values(known))
	msg := fmt.Sprintf("unknown server %q", name)
	if c := textdist.Closest(name, known); c != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", c)
	}
	return msg + "; the servers table has " + strings.Join(known, ", ")
}

// validateServer checks one server, described under path at node.
func validateServer(srv *Server, path string, node *yaml.Node, report func(*yaml.Node, string, string)) {
	at := func(field ...string) *yaml.Node { return orNode(lookup(node, field...), node) }
	checkCommand(srv.Command, at("command"), path+".command", report)
	if srv.Dialect != "" && !contains(dialects, srv.Dialect) {
		msg := fmt.Sprintf("unknown dialect %q (want %s)", srv.Dialect, strings.Join(dialects, ", "))
		if c := textdist.Closest(srv.Dialect, dialects); c != "" {
			msg += fmt.Sprintf("; did you mean %q?", c)
		}
		report(at("dialect"), path+".dialect", msg)
	}
	if srv.ReadyMessage != "" {
		if _, err := regexp.Compile(srv.ReadyMessage); err != nil {
			report(at("readyMessage"), path+".readyMessage", fmt.Sprintf("invalid regex: %v", err))
		}
	}
	if srv.Version != nil && srv.Version.Regex != "" {
		if _, err := regexp.Compile(srv.Version.Regex); err != nil {
			report(at("version", "regex"), path+".version.regex", fmt.Sprintf("invalid regex: %v", err))
		}
	}
	checkWorkspaceCode(srv.WorkspaceCode, at("workspaceCode"), path+".workspaceCode", report)
}

// maxWorkspaceCode bounds the workspaceCode clause, which every client
// shows in the tool's description.
const maxWorkspaceCode = 200

// checkWorkspaceCode checks a workspaceCode clause: "none" or one short
// line that says what runs.
func checkWorkspaceCode(clause string, n *yaml.Node, field string, report func(*yaml.Node, string, string)) {
	switch {
	case clause == "":
	case strings.ContainsAny(clause, "\r\n"):
		report(n, field, "must be one line: a clause naming the workspace code that runs, or none")
	case len(clause) > maxWorkspaceCode:
		report(n, field, fmt.Sprintf("is %d bytes long, more than %d: name what runs in one clause", len(clause), maxWorkspaceCode))
	}
}

// checkCommand checks the executable of a tool or server.
func checkCommand(command string, n *yaml.Node, field string, report func(*yaml.Node, string, string)) {
	if command == "" {
		report(n, field, "missing required field")
	} else if strings.ContainsAny(command, " \t") && !strings.ContainsAny(command, "/\\") {
		report(n, field, fmt.Sprintf("command %q contains spaces: put the executable in command and the rest in args (commands never run through a shell)", command))
	}
}

// keyNode returns the key node of key in mapping n, for messages about
// the key itself.
func keyNode(n *yaml.Node, key string) *yaml.Node {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i]
		}
	}
	return nil
}

var inputTypes = []string{"string", "path", "integer", "number", "boolean", "array"}

// standardInputs are the inputs placed by projectArg, pathArg, scriptArg and
// configArg; an inputs entry with their name only adds metadata.
var standardInputs = []string{"project", "path", "script", "configuration"}

// packetInput is the input langhost adds to shape a tool's diagnostics
// (host/exectool); a spec cannot define its own.
const packetInput = "packet"

func validateTool(t *Tool, path string, node *yaml.Node, report func(*yaml.Node, string, string)) {
	// at locates a field for a message, falling back to the tool itself.
	at := func(field ...string) *yaml.Node { return orNode(lookup(node, field...), node) }
	checkCommand(t.Command, at("command"), path+".command", report)
	if t.Fallback != nil && t.Fallback.Command == "" {
		report(at("fallback"), path+".fallback.command", "missing required field")
	}
	// Positions cannot be checked against args of the wrong type, which
	// decode as empty (the type is reported already).
	isList := func(n *yaml.Node) bool { n = deref(n); return n == nil || n.Kind == yaml.SequenceNode || isNull(n) }
	argsKnown := isList(lookup(node, "args")) && isList(lookup(node, "fallback", "args"))
	for _, pos := range []struct {
		name string
		v    *int
	}{{"projectArg", t.ProjectArg}, {"pathArg", t.PathArg}, {"scriptArg", t.ScriptArg}} {
		if pos.v == nil || !argsKnown {
			continue
		}
		checkPosition(*pos.v, t, at(pos.name), path+"."+pos.name, report)
	}
	checkWorkspaceCode(t.WorkspaceCode, at("workspaceCode"), path+".workspaceCode", report)
	if len(t.ConfigArg) > 1 {
		report(at("configArg"), path+".configArg", "expected at most one flag, e.g. [--configuration]")
	}
	if t.Version != nil && t.Version.Regex != "" {
		if _, err := regexp.Compile(t.Version.Regex); err != nil {
			report(at("version", "regex"), path+".version.regex", fmt.Sprintf("invalid regex: %v", err))
		}
	}

	inputs := entries(lookup(node, "inputs"))
	t.InputOrder = make([]string, len(inputs))
	for i, e := range inputs {
		name, inode := e.key, e.value
		t.InputOrder[i] = name
		// inAt locates a field of the input for a message.
		inAt := func(field string) *yaml.Node { return orNode(lookup(inode, field), inode) }
		in := t.Inputs[name]
		ip := path + ".inputs." + name
		if in == nil {
			report(inode, ip, "empty input definition")
			continue
		}
		if in.Type != "" && !contains(inputTypes, in.Type) {
			msg := fmt.Sprintf("unknown type %q (want one of %s)", in.Type, strings.Join(inputTypes, ", "))
			if s := textdist.Closest(in.Type, inputTypes); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			report(inAt("type"), ip+".type", msg)
		}
		if name == packetInput {
			report(orNode(keyNode(lookup(node, "inputs"), name), inode), ip, "input name packet is reserved: langhost adds it to tools with diagnostics parsers to shape their results (raw, compact or guided)")
			continue
		}
		if contains(standardInputs, name) {
			continue
		}
		if in.Flag == "" && in.Arg == nil {
			report(inode, ip, "input needs flag or arg to say where its value goes")
		}
		if in.Arg != nil && argsKnown {
			checkPosition(*in.Arg, t, inAt("arg"), ip+".arg", report)
		}
	}

	checkArgv(t, path, node, report)

	t.Parsers = make(map[string]*parsers.Parser, len(t.OutputParsers))
	for _, e := range entries(lookup(node, "outputParsers")) {
		name := e.key
		p, err := parsers.Compile(name, t.OutputParsers[name])
		if err != nil {
			var fe *parsers.FieldError
			field, msg := "", err.Error()
			if errors.As(err, &fe) {
				field, msg = fe.Field, fe.Err.Error()
			}
			n := e.value
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

// lookup follows mapping keys from n, through aliases; it returns the
// value node, or nil. It scans the mapping: use entries to visit every key.
func lookup(n *yaml.Node, path ...string) *yaml.Node {
	for _, key := range path {
		n = deref(n)
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
	return deref(n)
}

// entry is a key of a mapping with its value node.
type entry struct {
	key   string
	value *yaml.Node
}

// entries returns the pairs of mapping n (through an alias) in file order.
// Of duplicate keys, which checkStructure reports, it keeps the first.
func entries(n *yaml.Node) []entry {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	out := make([]entry, 0, len(n.Content)/2)
	seen := make(map[string]bool, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		if !seen[k] {
			seen[k] = true
			out = append(out, entry{k, deref(n.Content[i+1])})
		}
	}
	return out
}

// deref returns the node an alias stands for.
func deref(n *yaml.Node) *yaml.Node {
	if n != nil && n.Kind == yaml.AliasNode {
		return n.Alias
	}
	return n
}

// orNode returns the first node that is not nil.
func orNode(nodes ...*yaml.Node) *yaml.Node {
	for _, n := range nodes {
		if n != nil {
			return n
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`) })

// syntaxProblem turns a yaml.v3 parse error into a located Problem. A tab in
// indentation gets its own message: yaml.v3 reports it confusingly.
func syntaxProblem(name string, data []byte, err error) Problem {
	p := Problem{File: name, Message: err.Error()}
	if m := yamlLine().FindStringSubmatch(err.Error()); m != nil {
		p.Line, _ = strconv.Atoi(m[1])
		p.Message = "invalid YAML: " + m[2]
		// The library names the line of the enclosing construct (the
		// mapping the fault is in), without a column: find the line of
		// the fault itself.
		if line, col := faultPosition(data, m[2], p.Line); line > 0 {
			p.Line, p.Column = line, col
		}
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

// maxFaultLines bounds the search for a syntax error's line.
const maxFaultLines = 5000

// faultPosition finds where a YAML syntax error is: the first line, from
// the line the library named (the start of the construct the fault is
// in) on, at which the document cut after it fails with the same message. Its
// column is where the line's text starts, or just past its end when a
// flow collection was left open (a missing } or ]). It returns 0, 0 when
// no prefix fails the same way.
func faultPosition(data []byte, msg string, from int) (line, col int) {
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) > maxFaultLines {
		return 0, 0
	}
	end := 0
	for i, l := range lines {
		end += len(l)
		if i+1 < from {
			continue
		}
		var n yaml.Node
		err := yaml.Unmarshal(data[:end], &n)
		if err == nil {
			continue
		}
		m := yamlLine().FindStringSubmatch(err.Error())
		if m == nil || m[2] != msg {
			continue
		}
		text := strings.TrimRight(string(l), "\r\n")
		if strings.Contains(msg, "expected ',' or '}'") || strings.Contains(msg, "expected ',' or ']'") {
			return i + 1, utf8.RuneCountInString(text) + 1
		}
		return i + 1, utf8.RuneCountInString(text) - utf8.RuneCountInString(strings.TrimLeft(text, " ")) + 1
	}
	return 0, 0
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
