package spec

import (
	"encoding"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/langhost/langhost/internal/textdist"
	"go.yaml.in/yaml/v3"
)

// checkStructure walks a YAML node against the Go type it will be decoded
// into and reports every unknown key, duplicate key and wrong type with its
// position. yaml.v3's strict mode stops at the first problem and its
// Node.Decode is not strict at all, so the walk is done here.
func checkStructure(n *yaml.Node, t reflect.Type, path string, report func(n *yaml.Node, field, msg string)) {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if isNull(n) {
		return // absent value: defaults apply; required fields are checked later
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(textUnmarshaler) {
		if n.Kind != yaml.ScalarNode {
			report(n, path, fmt.Sprintf("expected a string, found %s", describe(n)))
			return
		}
		v := reflect.New(t).Interface().(encoding.TextUnmarshaler)
		if err := v.UnmarshalText([]byte(n.Value)); err != nil {
			report(n, path, err.Error())
		}
		return
	}
	switch t.Kind() {
	case reflect.Interface:
		return
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			report(n, path, fmt.Sprintf("expected a mapping, found %s", describe(n)))
			return
		}
		fields := yamlFields(t)
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			sub := join(path, k.Value)
			if line, dup := seen[k.Value]; dup {
				report(k, sub, fmt.Sprintf("duplicate key (first defined at line %d)", line))
				continue
			}
			seen[k.Value] = k.Line
			f, ok := fields[k.Value]
			if !ok {
				msg := fmt.Sprintf("unknown field %q", k.Value)
				if s := textdist.Closest(k.Value, sortedKeys(fields)); s != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", s)
				}
				report(k, sub, msg)
				continue
			}
			checkStructure(v, f.Type, sub, report)
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			report(n, path, fmt.Sprintf("expected a mapping, found %s", describe(n)))
			return
		}
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			sub := join(path, k.Value)
			if line, dup := seen[k.Value]; dup {
				report(k, sub, fmt.Sprintf("duplicate key (first defined at line %d)", line))
				continue
			}
			seen[k.Value] = k.Line
			checkStructure(v, t.Elem(), sub, report)
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			report(n, path, fmt.Sprintf("expected a list, found %s", describe(n)))
			return
		}
		for i, item := range n.Content {
			checkStructure(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i), report)
		}
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			report(n, path, fmt.Sprintf("expected a string, found %s", describe(n)))
		}
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
			report(n, path, fmt.Sprintf("expected true or false, found %s", describe(n)))
		}
	case reflect.Int, reflect.Int64, reflect.Int32:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
			report(n, path, fmt.Sprintf("expected an integer, found %s", describe(n)))
		}
	case reflect.Float64, reflect.Float32:
		if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!float" && n.ShortTag() != "!!int") {
			report(n, path, fmt.Sprintf("expected a number, found %s", describe(n)))
		}
	}
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

type yamlField struct {
	Type  reflect.Type
	Index []int // for reflect.Value.FieldByIndex
}

// fieldCache memoises yamlFields: reflection over the same few struct
// types for every node of every spec is a measurable part of loading.
var fieldCache sync.Map // reflect.Type -> map[string]yamlField

// yamlFields maps the YAML keys of a struct to their fields.
func yamlFields(t reflect.Type) map[string]yamlField {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]yamlField)
	}
	out := map[string]yamlField{}
	var inline []reflect.StructField
	for f := range t.Fields() {
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if f.Anonymous && opts == "inline" && f.Type.Kind() == reflect.Struct {
			inline = append(inline, f)
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = yamlField{Type: f.Type, Index: f.Index}
	}
	// The keys of an inline struct are the outer struct's own, as in
	// yaml.v3; a key of the outer struct wins.
	for _, f := range inline {
		for name, sub := range yamlFields(f.Type) {
			if _, ok := out[name]; !ok {
				out[name] = yamlField{Type: sub.Type, Index: append([]int{f.Index[0]}, sub.Index...)}
			}
		}
	}
	fieldCache.Store(t, out)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	switch n.ShortTag() {
	case "!!str":
		return fmt.Sprintf("string %q", n.Value)
	case "!!int":
		return fmt.Sprintf("integer %s", n.Value)
	case "!!float":
		return fmt.Sprintf("number %s", n.Value)
	case "!!bool":
		return fmt.Sprintf("boolean %s", n.Value)
	}
	return fmt.Sprintf("%q", n.Value)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
