package semantic

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// TestOperationDescriptions: the operations' descriptions serve every
// language and every surface, so they name no language, speak of no
// confirmation (the CLI's --yes and an MCP client's approval are the
// surfaces' own), and their first sentence, which is all an MCP client
// sees, promises nothing that only detail standard or full returns. An
// operation that writes says how (a transaction, apply or dry_run).
func TestOperationDescriptions(t *testing.T) {
	languages := regexp.MustCompile(`\b(Go|Python|TypeScript|JavaScript|Java|Rust)\b|C#|\.NET`)
	standardOnly := regexp.MustCompile(`(?i)line text|snippet|containing member|hover`)
	for _, op := range Operations() {
		d := op.Description
		if m := languages.FindString(d); m != "" {
			t.Errorf("%s names %s: %q", op.Name, m, d)
		}
		if strings.Contains(strings.ToLower(d), "confirmation") {
			t.Errorf("%s speaks of a confirmation: %q", op.Name, d)
		}
		first, _, _ := strings.Cut(d, ". ")
		var in struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(op.InputSchema, &in); err != nil {
			t.Fatal(err)
		}
		if _, ok := in.Properties["detail"]; ok && standardOnly.MatchString(first) {
			t.Errorf("%s's first sentence promises %q, which detail compact leaves out: %q", op.Name, standardOnly.FindString(first), first)
		}
		if op.SideEffects == "workspace" && !strings.Contains(d, "transaction") {
			t.Errorf("%s writes but does not say it writes through a transaction: %q", op.Name, d)
		}
	}
}
