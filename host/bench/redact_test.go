package bench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/bench"
	"github.com/langhost/langhost/plugins/builtin/builtintest"
)

// TestBenchRedactsKeys: a scripted model that repeats the API key, whole
// and without its prefix, and then fails quoting it, leaves no key in the
// run's result, its timeline, its transcript or the report.
func TestBenchRedactsKeys(t *testing.T) {
	builtintest.RequireTools(t, "go")
	const key = "sk-ant-api03-Wq5Rm8Xt2Lv7Pk4Zc9Nb3Hd6Jf1Ue0GyB"
	body := strings.TrimPrefix(key, "sk-ant-api03-")
	file := writeScenario(t, "name: leak\nlanguage: go\nfixture: fixture\ntask: say "+body+"\nscript: script.yaml\nchecks: [{command: [\"true\"]}]\n",
		map[string]string{"go.mod": "module example.com/a\n\ngo 1.22\n", "a.go": "package a\n"})
	script := "turns:\n" +
		"  - reply: {tool_calls: [{name: workspace_read_file, arguments: {path: '" + key + "'}}]}\n" +
		"  - reply: {raw: {status: 400, body: '{\"error\":{\"message\":\"bad request from " + body + "\"}}'}}\n"
	if err := os.WriteFile(filepath.Join(filepath.Dir(file), "script.yaml"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := bench.LoadScenario(file)
	if err != nil {
		t.Fatal(err)
	}
	c := bench.RunConfig{Name: "own"}
	if err := c.Normalize("test"); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	getenv := func(k string) string {
		if k == "ANTHROPIC_API_KEY" {
			return key
		}
		return ""
	}
	results, err := bench.Run(context.Background(), bench.Options{Out: out, OpenHost: openHost, Getenv: getenv}, []*bench.Scenario{s}, []bench.RunConfig{c})
	if err != nil {
		t.Fatal(err)
	}
	r := results[0]
	if r.StopReason != "model_error" || !strings.Contains(r.Error, "[redacted]") {
		t.Errorf("result: stop %s, error %q", r.StopReason, r.Error)
	}
	b, _ := json.Marshal(r)
	leaks := map[string][]byte{"result": b}
	for _, name := range []string{bench.ResultFile, bench.TimelineFile} {
		leaks[name], _ = os.ReadFile(filepath.Join(out, r.Run, name))
		if len(leaks[name]) == 0 {
			t.Errorf("no %s", name)
		}
	}
	rep, err := bench.LoadReport(out)
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	_ = rep.WriteText(&text)
	js, _ := json.Marshal(rep)
	leaks["report"], leaks["report json"] = text.Bytes(), js
	for name, data := range leaks {
		if bytes.Contains(data, []byte(body)) {
			t.Errorf("the key is in the %s:\n%s", name, data)
		}
	}
}
