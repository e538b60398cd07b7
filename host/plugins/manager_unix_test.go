//go:build unix

package plugins_test

import (
	"syscall"
	"testing"
)

func TestKilledBetweenCalls(t *testing.T) {
	tests := []struct {
		name        string
		waitForExit bool
	}{
		{"after exit is seen", true},
		{"immediately", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newManager(t, nil)
			spec := testSpec(t.TempDir(), true)
			p := get(t, m, spec)
			echo(t, p)
			oldPID, oldChild := p.PID(), serverPID(t, p)
			if err := syscall.Kill(oldPID, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			if tt.waitForExit {
				waitGone(t, "killed plugin", oldPID)
			}
			echo(t, p)
			if o := opened(t, p); o.PID == oldPID || o.Opens != 1 {
				t.Errorf("after kill: pid %d (old %d), %d opens; want a new process opened once", o.PID, oldPID, o.Opens)
			}
			waitGone(t, "killed plugin's child", oldChild)
		})
	}
}
