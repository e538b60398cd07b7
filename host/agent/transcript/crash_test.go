package transcript_test

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/agent/transcript"
)

// deadPID returns the pid of a process that ran and exited.
func deadPID(t *testing.T) int {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// A run whose process is gone without a run_end is crashed, not running
// forever; one whose process may still run (this one, another host's, an
// old transcript without a pid) stays running.
func TestSummarizeCrashedRun(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	// Writer.Write records this process.
	self := func(t *testing.T) transcript.Event {
		return writeAndRead(t, "self", transcript.Event{Type: transcript.RunStart, Run: "self"})[0]
	}
	tests := []struct {
		name      string
		start     func(t *testing.T) transcript.Event
		end       bool
		wantState string
	}{
		{"this process", func(t *testing.T) transcript.Event { return self(t) }, false, transcript.StateRunning},
		{"dead pid", func(t *testing.T) transcript.Event {
			return transcript.Event{Type: transcript.RunStart, PID: deadPID(t), Host: host}
		}, false, transcript.StateCrashed},
		{"dead pid, run ended", func(t *testing.T) transcript.Event {
			return transcript.Event{Type: transcript.RunStart, PID: deadPID(t), Host: host}
		}, true, transcript.StateFinished},
		{"pid reused by another process", func(t *testing.T) transcript.Event {
			ev := self(t)
			if ev.ProcStart == 0 {
				if runtime.GOOS == "linux" {
					t.Fatal("run_start has no process start time")
				}
				t.Skip("no process start times on " + runtime.GOOS)
			}
			ev.ProcStart++
			return ev
		}, false, transcript.StateCrashed},
		{"another host", func(t *testing.T) transcript.Event {
			return transcript.Event{Type: transcript.RunStart, PID: deadPID(t), Host: host + "-elsewhere"}
		}, false, transcript.StateRunning},
		{"no pid (older transcript)", func(t *testing.T) transcript.Event {
			return transcript.Event{Type: transcript.RunStart}
		}, false, transcript.StateRunning},
		{"hostile pid", func(t *testing.T) transcript.Event {
			return transcript.Event{Type: transcript.RunStart, PID: -1, Host: host}
		}, false, transcript.StateRunning},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := tt.start(t)
			start.Run = "r1"
			evs := []transcript.Event{start, {Type: transcript.ToolCall, Role: "coder", Step: 3, Tool: "go_build"}}
			if tt.end {
				evs = append(evs, transcript.Event{Type: transcript.RunEnd, StopReason: "final_answer"})
			}
			// Through a real file: what status reads.
			st := transcript.Summarize("x.jsonl", writeAndRead(t, "r1", evs...))
			if st.State != tt.wantState {
				t.Fatalf("state = %q (%s), want %q", st.State, st.Error, tt.wantState)
			}
			if tt.wantState == transcript.StateCrashed {
				if st.StopReason != "crashed" || !strings.Contains(st.Error, "killed or crashed") || st.Role != "coder" || st.Step != 3 {
					t.Errorf("crashed status = %+v", st)
				}
			}
		})
	}
}

// writeAndRead writes events with a real Writer and reads them back.
func writeAndRead(t *testing.T, id string, evs ...transcript.Event) []transcript.Event {
	t.Helper()
	w, err := transcript.Create(newWorkspace(t), id, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, ev := range evs {
		if err := w.Write(ev); err != nil {
			t.Fatal(err)
		}
	}
	got, err := transcript.Read(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// Writer.Write records the running process in run_start.
func TestRunStartRecordsProcess(t *testing.T) {
	ev := writeAndRead(t, "r2", transcript.Event{Type: transcript.RunStart, Run: "r2"})[0]
	host, _ := os.Hostname()
	if ev.PID != os.Getpid() || ev.Host != host {
		t.Errorf("run_start pid %d host %q, want %d %q", ev.PID, ev.Host, os.Getpid(), host)
	}
}
