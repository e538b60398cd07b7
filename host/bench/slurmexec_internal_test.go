package bench

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// TestExports: sbatch's --export names only set, non-secret variables;
// a secret asked for by name is refused, and the plan's digest is never
// taken from the submitter's environment (Submit sets it).
func TestExports(t *testing.T) {
	env := []string{"PATH=/usr/bin", "HOME=/home/u", "OPENAI_API_KEY=sk-abcdefghijklmnopqrstuvwxyz0123456789",
		"LANGHOST_DAEMON=0", "LANGHOST_BENCH_PLAN=forged", "MY_TOKEN=x", "EDITOR=vi", "WEIRD=sk-ant-abcdefghijklmnopqrstuvwxyz0123"}
	got, err := exports(env, []string{"EDITOR"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"PATH", "HOME", "LANGHOST_DAEMON", "EDITOR"}; !slices.Equal(got, want) {
		t.Errorf("exports = %q, want %q", got, want)
	}
	for _, bad := range []string{"OPENAI_API_KEY", "MY_TOKEN", "WEIRD", "A,B", "A=B", ""} {
		if _, err := exports(env, []string{bad}); failure.CodeOf(err) != failure.InvalidInput {
			t.Errorf("--export-env %q: %v, want invalid_input", bad, err)
		}
	}
	if got, _ := exports(nil, nil); !slices.Equal(got, []string{"NONE"}) {
		t.Errorf("exports of an empty environment = %q", got)
	}
}

func TestCheckExtra(t *testing.T) {
	for _, ok := range [][]string{nil, {"--qos=low"}, {"--account=lab", "--constraint=avx2"}} {
		if err := checkExtra(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range [][]string{{"--export=ALL"}, {"--export-file=/x"}, {"--array=0-9"}, {"-a"}, {"--wrap=id"},
		{"--comment=sk-abcdefghijklmnopqrstuvwxyz0123456789"}} {
		var fe *failure.Error
		if err := checkExtra(bad); !errors.As(err, &fe) || fe.Code != failure.InvalidInput || !strings.HasPrefix(fe.Field, "--sbatch-arg[") {
			t.Errorf("%q: %v, want invalid_input naming --sbatch-arg[i]", bad, fe)
		}
	}
}

func TestArraySpec(t *testing.T) {
	tests := []struct {
		idx  []int
		want string
	}{
		{[]int{0, 1, 2, 3}, "0-3"},
		{[]int{1, 4, 7, 8}, "1,4,7-8"},
		{[]int{5}, "5"},
	}
	for _, tt := range tests {
		if got := arraySpec(tt.idx); got != tt.want {
			t.Errorf("arraySpec(%v) = %q, want %q", tt.idx, got, tt.want)
		}
	}
}
