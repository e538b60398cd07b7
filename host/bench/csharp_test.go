package bench_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/bench"
	"github.com/langhost/langhost/plugins/builtin/builtintest"
)

// TestShippedCSharpScenarios runs the shipped C# scenarios with langhost's
// csharp-coding agent against the scripted model server: real dotnet
// (restore from the machine's NuGet folder, build, xunit) and csharp-ls
// checking every edit. It fails, not skips, where dotnet is on PATH.
func TestShippedCSharpScenarios(t *testing.T) {
	if _, err := exec.LookPath("dotnet"); err != nil {
		t.Skip("dotnet is not on PATH: install the .NET SDK 10 to run the C# scenarios")
	}
	builtintest.RequireTools(t, "csharp-ls")
	all, err := bench.LoadScenarios([]string{shipped})
	if err != nil {
		t.Fatal(err)
	}
	scenarios := slices.DeleteFunc(all, func(s *bench.Scenario) bool { return s.Language != "csharp" })
	if len(scenarios) < 2 {
		t.Fatalf("%d C# scenarios shipped, want at least 2", len(scenarios))
	}
	configs := []bench.RunConfig{{Name: "own-scripted", Provider: bench.ProviderScripted}}
	if err := bench.NormalizeConfigs("test", configs); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	results, err := bench.Run(context.Background(), bench.Options{Out: out, OpenHost: openHost}, scenarios, configs)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != len(scenarios) {
		t.Fatalf("%d results for %d scenarios", len(results), len(scenarios))
	}
	for _, r := range results {
		if !r.Success || r.StopReason != "final_answer" || r.Error != "" {
			b, _ := json.MarshalIndent(r, "", "  ")
			t.Errorf("%s did not succeed:\n%s", r.Scenario, b)
			continue
		}
		checkTimeline(t, filepath.Join(out, r.Run, bench.TimelineFile), r)
	}

	// What each edit came to: rejected for the error it would add, or
	// accepted; csharp-ls judged them, dotnet ran the tests.
	want := map[string]string{
		"csharp-fix-failing-test":  "csharp.test:tool_failed csharp.edit_file:diagnostic_regression csharp.edit_file:<nil> csharp.test:<nil>",
		"csharp-fix-compile-error": "csharp.build:tool_failed csharp.edit_file:<nil> csharp.test:<nil>",
	}
	for name, codes := range want {
		tl := readLines(t, filepath.Join(out, name+".own-scripted.1", bench.TimelineFile))
		var got []string
		for _, ev := range tl {
			if ev["type"] == "tool_result" {
				got = append(got, fmt.Sprint(ev["tool"], ":", ev["code"]))
			}
		}
		if strings.Join(got, " ") != codes {
			t.Errorf("tool results of %s = %q, want %q", name, strings.Join(got, " "), codes)
		}
	}
}
