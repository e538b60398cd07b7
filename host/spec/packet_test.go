package spec

import (
	"strings"
	"testing"
)

func TestParsePacket(t *testing.T) {
	const head = "language: {id: zz}\ntools:\n  check: {command: zzc}\n"
	tests := []struct {
		name, yaml string
		want       string
		err        string // substring of the problem
	}{
		{"none", head, "", ""},
		{"compact", head + "packet: compact\n", "compact", ""},
		{"guided", head + "packet: guided\n", "guided", ""},
		{"raw", head + "packet: raw\n", "raw", ""},
		{"unknown", head + "packet: evil\n", "", `zz.yaml:4:9: packet: unknown packet "evil": use raw, compact or guided`},
		{"case matters", head + "packet: Compact\n", "", `4:9: packet: unknown packet "Compact"`},
		{"not a string", head + "packet: [compact]\n", "", "4:9: packet"},
		{"reserved input", head + "  vet: {command: zzv, inputs: {packet: {flag: --packet}}}\n", "", `zz.yaml:4:32: tools.vet.inputs.packet: input name packet is reserved`},
		{"control bytes", head + "packet: \"comp\\x1bact\"\n", "", `unknown packet "comp\x1bact"`},
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
			if f.Packet != tt.want {
				t.Errorf("packet = %q, want %q", f.Packet, tt.want)
			}
		})
	}
}

func TestJSONSchemaPacket(t *testing.T) {
	s, err := JSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Properties["packet"].Enum; len(got) != 3 {
		t.Errorf("packet enum = %v", got)
	}
}
