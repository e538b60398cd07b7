package mcpserver_test

import (
	"errors"
	"testing"

	"github.com/langhost/langhost/host/mcpserver"
)

func errorsAs[T error](err error, target *T) bool { return errors.As(err, target) }

func TestToolNameRoundTrip(t *testing.T) {
	tests := []struct{ id, name string }{
		{"go.build", "go.build"},
		{"csharp.find_references", "csharp.find_references"},
		{"my-lang.lint", "my-lang.lint"},
		{"c++.build", "c_2B_2B.build"},
		{"c#.format", "c_23.format"},
		{"go.x_AB", "go.x_5FAB"}, // "_" before upper-case hex is escaped too
		{"go.x_ab", "go.x_ab"},
	}
	for _, tt := range tests {
		if got := mcpserver.ToolName(tt.id); got != tt.name {
			t.Errorf("ToolName(%q) = %q, want %q", tt.id, got, tt.name)
		}
		back, err := mcpserver.ToolID(tt.name)
		if err != nil || back != tt.id {
			t.Errorf("ToolID(%q) = %q, %v, want %q", tt.name, back, err, tt.id)
		}
	}
	if _, err := mcpserver.ToolID("go build"); err == nil {
		t.Error("ToolID accepted a space")
	}
}

func TestListenAddr(t *testing.T) {
	tests := []struct {
		in, addr string
		loopback bool
	}{
		{"8765", "127.0.0.1:8765", true},
		{":0", "127.0.0.1:0", true},
		{"localhost:1", "localhost:1", true},
		{"[::1]:9", "[::1]:9", true},
		{"0.0.0.0:80", "0.0.0.0:80", false},
		{"example.com:80", "example.com:80", false},
	}
	for _, tt := range tests {
		addr, loopback, err := mcpserver.ListenAddr(tt.in)
		if err != nil || addr != tt.addr || loopback != tt.loopback {
			t.Errorf("ListenAddr(%q) = %q, %v, %v; want %q, %v", tt.in, addr, loopback, err, tt.addr, tt.loopback)
		}
	}
}
