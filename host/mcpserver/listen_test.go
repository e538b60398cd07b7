package mcpserver_test

import (
	"errors"
	"testing"

	"github.com/langhost/langhost/host/mcpserver"
)

func errorsAs[T error](err error, target *T) bool { return errors.As(err, target) }

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
