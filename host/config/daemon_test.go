package config

import (
	"strings"
	"testing"
	"time"
)

func TestDaemonSettings(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		on      bool
		idle    time.Duration
		wantErr string
	}{
		{"defaults", nil, true, 10 * time.Minute, ""},
		{"off", map[string]string{"LANGHOST_DAEMON": "0"}, false, 10 * time.Minute, ""},
		{"false", map[string]string{"LANGHOST_DAEMON": "false"}, false, 10 * time.Minute, ""},
		{"on", map[string]string{"LANGHOST_DAEMON": "1"}, true, 10 * time.Minute, ""},
		{"idle", map[string]string{"LANGHOST_DAEMON_IDLE_TIMEOUT": "1s"}, true, time.Second, ""},
		{"not a boolean", map[string]string{"LANGHOST_DAEMON": "maybe"}, false, 0, "daemon.enabled (from env LANGHOST_DAEMON)"},
		{"zero idle", map[string]string{"LANGHOST_DAEMON_IDLE_TIMEOUT": "0s"}, false, 0, "daemon.idle_timeout (from env LANGHOST_DAEMON_IDLE_TIMEOUT)"},
		{"bad idle", map[string]string{"LANGHOST_DAEMON_IDLE_TIMEOUT": "soon"}, false, 0, "not a positive duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Load(Paths{}, nil, func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Daemon != tt.on || cfg.DaemonIdleTimeout != tt.idle {
				t.Errorf("daemon %v idle %s, want %v %s", cfg.Daemon, cfg.DaemonIdleTimeout, tt.on, tt.idle)
			}
		})
	}
}
