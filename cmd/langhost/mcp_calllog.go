package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/langhost/langhost/host/bench"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// callLogLine is one line of the call log: a start, or a call.
type callLogLine struct {
	Time  time.Time    `json:"time"`
	Event string       `json:"event"` // start or call
	Tool  string       `json:"tool,omitempty"`
	Code  failure.Code `json:"code,omitempty"`
}

// callLog appends to the call log.
type callLog struct {
	mu sync.Mutex
	f  *os.File
}

// openCallLog opens the file the environment names, if it does, else the
// bench's call log of the workspace if a bench run made one (agent CLIs
// that strip the environment, bench.CallLogFor), and notes the start.
func openCallLog(f *factory, workspace string) (*callLog, error) {
	path, ok := f.env(bench.CallLogEnv)
	flags := os.O_WRONLY | os.O_APPEND | os.O_CREATE
	if !ok || path == "" {
		var err error
		if path, err = bench.CallLogFor(workspace); err != nil {
			return nil, nil
		}
		flags &^= os.O_CREATE // only while a bench run is under way
	}
	file, err := os.OpenFile(path, flags, 0o600)
	if errors.Is(err, fs.ErrNotExist) && flags&os.O_CREATE == 0 {
		return nil, nil
	}
	if err != nil {
		return nil, failure.Wrap(failure.Precondition, err, "%s", bench.CallLogEnv)
	}
	l := &callLog{f: file}
	l.write(callLogLine{Event: "start"})
	return l, nil
}

// note records a call; it is mcpserver.Options.OnCall.
func (l *callLog) note(tool string, code failure.Code) {
	l.write(callLogLine{Event: "call", Tool: tool, Code: code})
}

func (l *callLog) write(line callLogLine) {
	line.Time = time.Now().UTC()
	b, err := json.Marshal(line)
	if err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	// Best effort: the log must not fail a call.
	_, _ = fmt.Fprintf(l.f, "%s\n", b)
}

func (l *callLog) Close() error { return l.f.Close() }
