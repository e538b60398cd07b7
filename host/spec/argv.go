package spec

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Placement is where a tool puts an input's value on its command line.
type Placement struct {
	// Position is the index of args the value is inserted at; -1 appends it
	// after the flag inputs. Nil for a flag input.
	Position *int
	// Flag precedes the value as its own argv element, or joined to it when
	// it ends in "=". Empty for a positional input.
	Flag string
	// Path says the value (each element of an array) is a workspace path,
	// passed to the tool as "./relative", which never looks like an option.
	Path bool
}

// Joined reports whether the value is joined to its flag ("--output=VALUE").
func (p Placement) Joined() bool { return p.Position == nil && strings.HasSuffix(p.Flag, "=") }

// Placement returns where t puts the value of input name; ok is false when
// the input does not reach the command line. project, path and script are
// placed by projectArg, pathArg and scriptArg and are always paths;
// configuration follows the flag in configArg.
func (t *Tool) Placement(name string) (p Placement, ok bool) {
	switch name {
	case "project":
		return Placement{Position: t.ProjectArg, Path: true}, t.ProjectArg != nil
	case "path":
		return Placement{Position: t.PathArg, Path: true}, t.PathArg != nil
	case "script":
		return Placement{Position: t.ScriptArg, Path: true}, t.ScriptArg != nil
	case "configuration":
		if len(t.ConfigArg) != 1 {
			return Placement{}, false
		}
		return Placement{Flag: t.ConfigArg[0]}, true
	}
	in := t.Inputs[name]
	if in == nil || in.Flag == "" && in.Arg == nil {
		return Placement{}, false
	}
	p = Placement{Position: in.Arg, Flag: in.Flag, Path: in.Type == "path" || in.Type == "array" && in.Items == "path"}
	if p.Position != nil {
		p.Flag = "" // the position wins, as it does when the argv is built
	}
	return p, true
}

// OptionLike reports whether a value placed in argv as its own element
// could be read as something other than data: "-x" is an option, and
// "@file" is a response file of options to gcc, javac, java and dotnet.
func OptionLike(s string) bool {
	return strings.HasPrefix(s, "-") || strings.HasPrefix(s, "@")
}

// OptionLikeAllowed reports whether the value of input name may start with
// "-" or "@" (see OptionLike). It depends on where the value lands:
//
//   - Joined to a flag ending in "=" ("--output=VALUE", "-std=VALUE"):
//     always. The argv element starts with the flag, so no parser can take
//     the value for an option or expand it as a response file.
//   - After its flag as a separate element ("-run", VALUE): only with
//     allowDash, by which the spec declares that the flag always takes the
//     next element as its value (Go's flag package, a getopt option with a
//     required argument) and that the program expands no @files there. A
//     flag with an optional argument (make -j) would leave "-x" to be read
//     as the next option.
//   - Positional (projectArg, arg: N, ...): only with allowDash, and only
//     where a "--" ends the options before the value: endOfOptions, or a
//     literal "--" in args, and in the fallback's args, before the
//     insertion point. Without one the program reads "-x" as an option
//     whatever the spec says, so validation refuses allowDash there.
func (t *Tool) OptionLikeAllowed(name string) bool {
	p, ok := t.Placement(name)
	switch {
	case !ok:
		return false
	case p.Joined():
		return true
	}
	in := t.Inputs[name]
	if in == nil || !in.AllowDash {
		return false
	}
	return p.Position == nil || t.afterEndOfOptions(*p.Position)
}

// afterEndOfOptions reports whether a value inserted at pos follows a "--"
// in every command line the tool runs (its command's and its fallback's).
func (t *Tool) afterEndOfOptions(pos int) bool {
	if t.EndOfOptions && pos == -1 {
		return true
	}
	lists := [][]string{t.Args}
	if t.Fallback != nil {
		lists = append(lists, t.Fallback.Args)
	}
	for _, args := range lists {
		n := len(args)
		if pos >= 0 && pos < n {
			n = pos
		}
		if !slices.Contains(args[:n], "--") {
			return false
		}
	}
	return true
}

var itemTypes = []string{"string", "path"}

// checkArgv checks the fields that decide whether an input's value can
// turn into an option of the tool: allowDash, endOfOptions, a "--" in args,
// items, and defaults and enum values that would be refused at run time.
func checkArgv(t *Tool, path string, node *yaml.Node, report func(*yaml.Node, string, string)) {
	at := func(field ...string) *yaml.Node { return orNode(lookup(node, field...), node) }
	dashDash := slices.Contains(t.Args, "--") || t.Fallback != nil && slices.Contains(t.Fallback.Args, "--")
	const appendOnly = "with endOfOptions every positional input must append (-1): the -- goes right before the appended values, so a value inserted inside args would come before it"
	const afterDashDash = "flag inputs are placed after args, so after its \"--\", where the tool would read the flag as an operand"
	if t.EndOfOptions && dashDash {
		report(at("endOfOptions"), path+".endOfOptions", "args already contain \"--\": endOfOptions would add a second one")
	}
	positional := 0
	for _, pos := range []struct {
		name string
		v    *int
	}{{"projectArg", t.ProjectArg}, {"pathArg", t.PathArg}, {"scriptArg", t.ScriptArg}} {
		if pos.v == nil {
			continue
		}
		positional++
		if t.EndOfOptions && *pos.v != -1 {
			report(at(pos.name), path+"."+pos.name, appendOnly)
		}
	}
	if dashDash && len(t.ConfigArg) == 1 {
		report(at("configArg"), path+".configArg", afterDashDash)
	}

	inputs := lookup(node, "inputs")
	if inputs == nil || inputs.Kind != yaml.MappingNode {
		inputs = &yaml.Node{}
	}
	// The inputs mapping is walked pair by pair: a spec may have many.
	for i := 0; i+1 < len(inputs.Content); i += 2 {
		name, inode := inputs.Content[i].Value, inputs.Content[i+1]
		in := t.Inputs[name]
		if in == nil {
			continue
		}
		ip := path + ".inputs." + name
		inAt := func(field string) *yaml.Node { return orNode(lookup(inode, field), inode) }
		switch {
		case in.Items == "":
		case in.Type != "array":
			report(inAt("items"), ip+".items", "items applies to inputs of type array only")
		case !contains(itemTypes, in.Items):
			report(inAt("items"), ip+".items", fmt.Sprintf("unknown items type %q (want string or path)", in.Items))
		}
		if !contains(standardInputs, name) {
			if in.Flag != "" && in.Arg != nil {
				report(inode, ip, "set flag or arg, not both: a positional value gets no flag")
			}
			if in.Arg != nil {
				positional++
				if t.EndOfOptions && *in.Arg != -1 {
					report(inAt("arg"), ip+".arg", appendOnly)
				}
			} else if in.Flag != "" && dashDash {
				report(inAt("flag"), ip+".flag", afterDashDash)
			}
		}
		p, placed := t.Placement(name)
		if in.AllowDash {
			if msg := allowDashProblem(t, in, p, placed); msg != "" {
				report(inAt("allowDash"), ip+".allowDash", msg)
				continue
			}
		}
		if !placed || p.Path || t.OptionLikeAllowed(name) {
			continue
		}
		for _, field := range []string{"default", "enum"} {
			v := in.Default
			if field == "enum" {
				v = in.Enum
			}
			if s, bad := optionLikeValue(v); bad {
				report(inAt(field), ip+"."+field, fmt.Sprintf("%q starts with %q, which %s would read as an option: input values may not (see allowDash)", s, s[:1], t.Command))
			}
		}
	}
	if t.EndOfOptions && positional == 0 {
		report(at("endOfOptions"), path+".endOfOptions", "the tool has no positional input (projectArg, pathArg, scriptArg or arg) for -- to precede")
	}
}

// allowDashProblem says why allowDash cannot be set on an input placed at
// p, or "" if it can.
func allowDashProblem(t *Tool, in *Input, p Placement, placed bool) string {
	switch {
	case !placed:
		return "the input is not placed on the command line; allowDash has no effect"
	case in.Type == "boolean":
		return "a boolean input adds only its flag; allowDash has no effect"
	case p.Path:
		return "paths are passed as ./relative paths, which never start with - or @; allowDash has no effect"
	case p.Joined():
		return "a value joined to a flag ending in = is never read as an option; allowDash has no effect"
	case p.Position != nil && !t.afterEndOfOptions(*p.Position):
		return "a positional value starting with - would be read as an option: allowDash needs endOfOptions: true (or a \"--\" in args before the value)"
	}
	return ""
}

// optionLikeValue returns the first value of v, a scalar or a list, that
// is OptionLike when written into argv.
func optionLikeValue(v any) (string, bool) {
	switch v := v.(type) {
	case nil:
		return "", false
	case []any:
		for _, e := range v {
			if s, bad := optionLikeValue(e); bad {
				return s, true
			}
		}
		return "", false
	}
	s := fmt.Sprint(v)
	return s, OptionLike(s)
}
