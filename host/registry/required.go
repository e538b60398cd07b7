package registry

import (
	"fmt"
	"strings"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// missingRequired names, in words, the required inputs that input lacks:
// "go.rename_symbol needs symbol (the symbol to rename) and new_name", not
// the schema validator's `required: missing properties: ["symbol"
// "new_name"]`.
func (t *Tool) missingRequired(input map[string]any) error {
	var missing, described []string
	for _, name := range t.InputSchema.Required {
		if _, ok := input[name]; ok {
			continue
		}
		missing = append(missing, name)
		d := name
		if p := t.InputSchema.Properties[name]; p != nil && p.Description != "" {
			d += " (" + firstSentence(p.Description) + ")"
		}
		described = append(described, d)
	}
	if len(missing) == 0 {
		return nil
	}
	what := "input"
	if len(missing) > 1 {
		what = "inputs"
	}
	return &failure.Error{Code: failure.InvalidInput, Field: missing[0],
		Message: fmt.Sprintf("%s needs the %s %s", t.ID, what, joinWords(described)),
		Details: map[string]any{"missing": missing}}
}

// joinWords joins "a", "a and b", "a, b and c".
func joinWords(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// firstSentence is a description's first sentence, without its period.
func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSuffix(s, ".")
}
