package txnlog

import (
	"strings"
	"testing"
)

func TestValidID(t *testing.T) {
	for _, tc := range []struct {
		id   string
		want bool
	}{
		{NewID(), true},
		{"a", true},
		{"20261125T195400123456-0a1b2c3d", true},
		{strings.Repeat("a", 64), true},
		{strings.Repeat("a", 65), false},
		{"", false},
		{"-a", false},
		{"a-", true},
		{"../x", false},
		{"a/b", false},
		{"a.b", false},
		{"a b", false},
		{"a\n", false},
		{"é", false},
		{"a\x00", false},
	} {
		if got := validID(tc.id); got != tc.want {
			t.Errorf("validID(%q) = %v, want %v", tc.id, got, tc.want)
		}
	}
}
