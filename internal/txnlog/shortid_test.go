package txnlog

import (
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

func TestResolve(t *testing.T) {
	recs := []*Record{
		{ID: "20261127T232937792114-911c66c0"},
		{ID: "20261127T232937799690-6f004344"},
		{ID: "20261127T232940000000-911d0000"},
	}
	tests := []struct {
		id, want string
		code     failure.Code
	}{
		{"20261127T232937792114-911c66c0", "20261127T232937792114-911c66c0", ""},
		{"911c66c0", "20261127T232937792114-911c66c0", ""},
		{"911c", "20261127T232937792114-911c66c0", ""},
		{"6f00", "20261127T232937799690-6f004344", ""},
		{"20261127T2329377996", "20261127T232937799690-6f004344", ""},
		{"911", "", failure.NotFound},            // shorter than git's shortest
		{"911d0000x", "", failure.NotFound},      // longer than any
		{"20261127T2329", "", failure.Ambiguous}, // every one
		{"abcd", "", failure.NotFound},
	}
	for _, tt := range tests {
		got, err := resolve(recs, tt.id)
		if got != tt.want || failure.CodeOf(err) != tt.code {
			t.Errorf("resolve(%q) = %q, %v; want %q, %s", tt.id, got, err, tt.want, tt.code)
		}
	}
}
