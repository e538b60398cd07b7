package main

import (
	"strings"
	"testing"
)

// TestToolsDescribeDeprecatedInputs: tools describe lists the old
// spellings a tool still accepts, and a run with one works as with the
// current name.
func TestToolsDescribeDeprecatedInputs(t *testing.T) {
	c := newCLI(t)
	o := c.run("tools", "describe", "go.rename")
	data, _ := o.env.Data.(map[string]any)
	dep, _ := data["deprecated_inputs"].(map[string]any)
	if o.code != 0 || dep["newName"] != "new_name" {
		t.Fatalf("describe: exit %d, deprecatedInputs %v\n%s", o.code, dep, o.stderr)
	}
	c.json = false
	if o := c.run("tools", "describe", "go.rename"); !strings.Contains(o.stdout, "newName: deprecated spelling of new_name") {
		t.Errorf("text describe:\n%s", o.stdout)
	}
}
