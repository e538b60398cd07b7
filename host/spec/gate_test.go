package spec

import (
	"strings"
	"testing"
)

func TestParseGate(t *testing.T) {
	const head = "language: {id: zz}\ntools:\n  check: {command: zzc}\n  build: {command: zzb, id: zz.compile}\n"
	tests := []struct {
		name, yaml string
		want       string // key of the gate tool; "" = none
		err        string // substring of the problem
	}{
		{"none", head, "", ""},
		{"by key", head + "gate: check\n", "check", ""},
		{"by id", head + "gate: zz.compile\n", "build", ""},
		{"unknown", head + "gate: chek\n", "", `5:7: gate: gate "chek" is not a tool of this spec (did you mean "check"?); its tools are check, build`},
		{"not a string", head + "gate: [check]\n", "", "gate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse("zz.yaml", []byte(tt.yaml))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if g := f.GateTool(); g != nil {
				got = g.Key
			}
			if got != tt.want {
				t.Errorf("gate tool = %q, want %q", got, tt.want)
			}
		})
	}
}
