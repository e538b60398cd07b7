package spec

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// decodeNode sets v from n as yaml.v3's Node.Decode would for the types of
// a spec, skipping the nodes in bad (reported by checkStructure) and
// unknown keys, so that one wrong value does not stop the rest of the file
// from being decoded and checked. A scalar yaml.v3 cannot decode although
// checkStructure let it pass (an integer too large) is reported.
//
// It exists because Node.Decode compares every key of a mapping with every
// other to find duplicates: a 1 MiB spec of keys took a minute to decode.
// This walk is linear (checkStructure has reported duplicates); scalars
// still decode through yaml.v3, one node at a time.
func decodeNode(n *yaml.Node, v reflect.Value, path string, bad map[*yaml.Node]bool, report func(*yaml.Node, string, string)) {
	n = deref(n)
	if n == nil || bad[n] || isNull(n) {
		return
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		decodeNode(n, v.Elem(), path, bad, report)
		return
	}
	if n.Kind == yaml.ScalarNode {
		if err := n.Decode(v.Addr().Interface()); err != nil {
			report(n, path, decodeError(err))
		}
		return
	}
	switch v.Kind() {
	case reflect.Interface:
		if v.NumMethod() == 0 {
			v.Set(reflect.ValueOf(decodeAny(n, bad)))
		}
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return
		}
		fields := yamlFields(v.Type())
		for _, e := range entries(n) {
			if f, ok := fields[e.key]; ok {
				decodeNode(e.value, v.FieldByIndex(f.Index), join(path, e.key), bad, report)
			}
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode || v.Type().Key().Kind() != reflect.String {
			return
		}
		if v.IsNil() {
			v.Set(reflect.MakeMapWithSize(v.Type(), len(n.Content)/2))
		}
		mergeInto(n, func(key string, value *yaml.Node) {
			if bad[value] {
				return
			}
			elem := reflect.New(v.Type().Elem()).Elem()
			decodeNode(value, elem, join(path, key), bad, report)
			v.SetMapIndex(reflect.ValueOf(key).Convert(v.Type().Key()), elem)
		})
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return
		}
		s := reflect.MakeSlice(v.Type(), 0, len(n.Content))
		elem := v.Type().Elem()
		for i, item := range n.Content {
			// As yaml.v3 does, a null item is left out unless the element
			// can be nil.
			if d := deref(item); d != nil && isNull(d) && !nillable(elem.Kind()) {
				continue
			}
			s = reflect.Append(s, reflect.Zero(elem))
			decodeNode(item, s.Index(s.Len()-1), fmt.Sprintf("%s[%d]", path, i), bad, report)
		}
		v.Set(s)
	}
}

// nillable reports whether a value of kind k can be nil.
func nillable(k reflect.Kind) bool {
	switch k {
	case reflect.Interface, reflect.Pointer, reflect.Map, reflect.Slice:
		return true
	}
	return false
}

// decodeError is yaml.v3's message without its "yaml: unmarshal errors:
// line N:" wrapping, which the problem's position replaces.
func decodeError(err error) string {
	var te *yaml.TypeError
	if !errors.As(err, &te) || len(te.Errors) == 0 {
		return err.Error()
	}
	msg := te.Errors[0]
	if strings.HasPrefix(msg, "line ") {
		if _, rest, ok := strings.Cut(msg, ": "); ok {
			msg = rest
		}
	}
	return msg
}

// decodeAny decodes n into the generic values yaml.v3 gives an interface:
// map[string]any, []any or a scalar.
func decodeAny(n *yaml.Node, bad map[*yaml.Node]bool) any {
	n = deref(n)
	if n == nil || bad[n] {
		return nil
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		mergeInto(n, func(key string, value *yaml.Node) { m[key] = decodeAny(value, bad) })
		return m
	case yaml.SequenceNode:
		s := make([]any, len(n.Content))
		for i, item := range n.Content {
			s[i] = decodeAny(item, bad)
		}
		return s
	}
	var v any
	_ = n.Decode(&v)
	return v
}

// mergeInto calls set for every pair of mapping n, merge keys (<<: *base)
// first so that the mapping's own keys win, as in yaml.v3. Of duplicate
// keys, reported by checkStructure, the last wins.
func mergeInto(n *yaml.Node, set func(key string, value *yaml.Node)) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			from := deref(n.Content[i+1])
			sources := []*yaml.Node{from}
			if from != nil && from.Kind == yaml.SequenceNode {
				sources = from.Content // earlier mappings win: apply them last
			}
			for j := len(sources) - 1; j >= 0; j-- {
				if m := deref(sources[j]); m != nil && m.Kind == yaml.MappingNode {
					mergeInto(m, set)
				}
			}
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; !(k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge") {
			set(k.Value, n.Content[i+1])
		}
	}
}
