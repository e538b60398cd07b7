// Package inputname is the naming rule of tool inputs: snake_case
// (new_name, min_severity), across every tool of every language. Inputs
// once spelt in lowerCamelCase (newName, minSeverity) keep that spelling
// as a deprecated alias, which Canonicalize maps to the current name. It
// is the one alias mechanism: the host applies it when it validates
// input, and a plugin when it decodes input from an older caller.
package inputname

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Snake returns name in snake_case: "newName" -> "new_name". A name
// already in snake_case is returned as it is.
func Snake(name string) string {
	var b strings.Builder
	for i, r := range name {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Deprecated returns the deprecated spelling of a snake_case name, its
// lowerCamelCase form ("new_name" -> "newName"), or "" when it has none.
func Deprecated(name string) string {
	if !strings.Contains(name, "_") || strings.HasPrefix(name, "_") {
		return ""
	}
	parts := strings.Split(name, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] == "" {
			return ""
		}
		parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
	}
	if old := strings.Join(parts, ""); Snake(old) == name {
		return old
	}
	return ""
}

// IsSnake reports whether name follows the rule: lower case letters,
// digits and single underscores between words.
func IsSnake(name string) bool {
	if name == "" || strings.HasPrefix(name, "_") || strings.HasSuffix(name, "_") || strings.Contains(name, "__") {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// Aliases maps the deprecated spelling of each name that has one to the
// name.
func Aliases(names []string) map[string]string {
	var m map[string]string
	for _, n := range names {
		if old := Deprecated(n); old != "" {
			if m == nil {
				m = map[string]string{}
			}
			m[old] = n
		}
	}
	return m
}

// Canonicalize renames, in place, each key of input that is not a name
// known reports but whose snake_case form is, and returns the keys it
// renamed (their old spelling), sorted. Both spellings of one input is
// invalid input naming the old one.
func Canonicalize[V any](input map[string]V, known func(string) bool) ([]string, error) {
	var renamed []string
	for _, key := range slices.Sorted(maps.Keys(input)) {
		if known(key) {
			continue
		}
		name := Snake(key)
		if name == key || !known(name) {
			continue
		}
		if _, both := input[name]; both {
			return nil, &failure.Error{Code: failure.InvalidInput, Field: key,
				Message: fmt.Sprintf("input %s is given twice, as %q and as its deprecated spelling %q: pass only %s", name, name, key, name)}
		}
		input[name] = input[key]
		delete(input, key)
		renamed = append(renamed, key)
	}
	return renamed, nil
}
