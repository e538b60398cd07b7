// Package transcript records an agent run as JSON lines under the
// workspace's .langhost/runs/<id>.jsonl: every message, tool call, tool
// result, role change, token count and timing, one event a line, written
// as it happens so that `langhost agent status` can read a run still
// going. Secrets (API keys) are redacted before anything is written.
package transcript

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/langhost/langhost/host/agent/model"
	"github.com/langhost/langhost/internal/privfile"
	"github.com/langhost/langhost/internal/procgroup"
	"github.com/langhost/langhost/internal/redact"
	"github.com/langhost/langhost/internal/safefile"
	"github.com/langhost/langhost/internal/txnlog"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Dir is the directory of transcripts, relative to the workspace root.
const Dir = ".langhost/runs"

// Event types.
const (
	RunStart   = "run_start"
	Message    = "message"     // a message of the conversation (user, assistant)
	ModelCall  = "model_call"  // one model request: usage and duration
	ToolCall   = "tool_call"   // a tool the model called, with its input
	ToolResult = "tool_result" // the observation the model got back
	RoleChange = "role_change" // a transition from one role to another
	Escalation = "escalation"  // a tool call the role does not allow, refused
	Plan       = "plan"        // the planner's validated plan
	Review     = "review"      // the reviewer's verdict
	RunEnd     = "run_end"
)

// Event is one line of a transcript. Fields beyond the first four are set
// by the event types they belong to.
type Event struct {
	Seq  int       `json:"seq"`
	Time time.Time `json:"time"`
	Type string    `json:"type"`
	// Role is the role the agent acts in when the event happens.
	Role string `json:"role"`
	Step int    `json:"step,omitempty"`

	// run_start
	Run      string `json:"run,omitempty"`
	Agent    string `json:"agent,omitempty"`
	Workflow string `json:"workflow,omitempty"`
	Task     string `json:"task,omitempty"`
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	// PID, Host and ProcStart identify the process running the run (set
	// by Writer.Write), so that status can tell a run whose process died
	// without a run_end from one still going. ProcStart is the process's
	// start time in clock ticks after boot (Linux; 0 elsewhere): a pid
	// reused by another process does not pass for the run's.
	PID       int    `json:"pid,omitempty"`
	Host      string `json:"host,omitempty"`
	ProcStart uint64 `json:"proc_start,omitempty"`

	// message
	Message *model.Message `json:"message,omitempty"`

	// model_call, tool_result
	Usage      *model.Usage `json:"usage,omitempty"`
	StopReason string       `json:"stop_reason,omitempty"` // model_call: the model's; run_end: the run's
	DurationMS float64      `json:"duration_ms,omitempty"`

	// tool_call, tool_result, escalation
	Tool        string          `json:"tool,omitempty"`
	CallID      string          `json:"call_id,omitempty"`
	Input       json.RawMessage `json:"input,omitempty"`
	Observation string          `json:"observation,omitempty"`
	Code        string          `json:"code,omitempty"` // failure class of a failed call
	IsError     bool            `json:"is_error,omitempty"`

	// role_change
	From   string `json:"from,omitempty"`
	To     string `json:"to,omitempty"`
	Reason string `json:"reason,omitempty"`

	// plan, review
	Data json.RawMessage `json:"data,omitempty"`

	// run_end
	Answer string `json:"answer,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Writer appends events to one run's transcript. It is safe for
// concurrent use.
type Writer struct {
	mu   sync.Mutex
	f    *os.File
	path string
	seq  int
	red  *redact.Redactor
	err  error // the first write error; later writes are skipped
}

// NewID returns a new run id; ids sort by start time.
func NewID() string { return txnlog.NewID() }

// Create starts the transcript of run id in the workspace. Every value in
// secrets (API keys) is replaced by "[redacted]" wherever it would be
// written, as redact.New says (also without a known key prefix, and any
// key shape). The directory is confined to the workspace
// (a .langhost/runs symlink leading out is refused) and owner-only.
func Create(ws *workspace.Root, id string, secrets []string) (*Writer, error) {
	if !idRE().MatchString(id) {
		return nil, &failure.Error{Code: failure.InvalidInput, Field: "run", Message: fmt.Sprintf("%q is not a run id (letters, digits and '-')", id)}
	}
	dir, err := ws.Resolve("", Dir)
	if err != nil {
		return nil, fmt.Errorf("transcripts: %w", err)
	}
	if err := privfile.Dir(dir); err != nil {
		return nil, failure.Wrap(failure.Precondition, err, "creating %s", Dir)
	}
	// Check again now that it exists: nothing along it may lead out.
	if again, err := ws.Resolve("", Dir); err != nil || again != dir {
		return nil, failure.New(failure.Precondition, "%s changed while it was created; no transcript was written", Dir)
	}
	// A transcript holds what the agent read (a .env, say): keep it out
	// of commits.
	if err := ws.IgnoreState(); err != nil {
		return nil, fmt.Errorf("transcripts: %w", err)
	}
	path := filepath.Join(dir, id+".jsonl")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600) // O_EXCL: never through a planted symlink
	if err != nil {
		return nil, failure.Wrap(failure.Precondition, err, "creating the transcript of run %s", id)
	}
	return &Writer{f: f, path: path, red: redact.New(secrets...)}, nil
}

// Compiled on first use, not at package init, which every CLI start pays
// (a {n,m} repetition compiles to n..m copies of its class).
var idRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z-]{0,63}$`) })

// Path is the transcript file.
func (w *Writer) Path() string { return w.path }

// Write appends ev, setting its sequence number and, if zero, its time. A
// failed write is returned once and then writing stops: losing the rest
// of a transcript must not stop the run it records.
func (w *Writer) Write(ev Event) error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return nil
	}
	w.seq++
	ev.Seq = w.seq
	if ev.Type == RunStart && ev.PID == 0 {
		ev.PID, ev.ProcStart = os.Getpid(), procgroup.StartTime(os.Getpid())
		ev.Host, _ = os.Hostname()
	}
	if ev.Time.IsZero() {
		ev.Time = time.Now().UTC()
	}
	line, err := json.Marshal(ev)
	if err != nil {
		w.err = fmt.Errorf("transcript event %d: %w", ev.Seq, err)
		return w.err
	}
	line = w.red.Bytes(line)
	if _, err := w.f.Write(append(line, '\n')); err != nil {
		w.err = fmt.Errorf("writing the transcript %s: %w", w.path, err)
		return w.err
	}
	return nil
}

// Close closes the file.
func (w *Writer) Close() error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.f.Close()
}

// MaxSize bounds a transcript read back: a run writes far less.
const MaxSize = 64 << 20

// Read returns the events of the transcript at path; see ReadContext.
func Read(path string) ([]Event, error) { return ReadContext(context.Background(), path) }

// ReadContext returns the events of the transcript at path, which must be
// a regular file of at most MaxSize bytes: a transcript sits in the
// workspace, so it may have been replaced by a named pipe, a device or a
// huge file, and reading one must neither block nor fill memory. A last
// line cut short (the run is still writing it) is ignored; a bad line
// elsewhere is an error naming it. Reading stops when ctx is done.
func ReadContext(ctx context.Context, path string) ([]Event, error) {
	f, err := safefile.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, failure.Wrap(failure.NotFound, err, "no transcript %s", path)
		}
		return nil, failure.Wrap(failure.InvalidInput, err, "transcript %s", path)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > MaxSize {
		return nil, failure.New(failure.InvalidInput, "transcript %s: larger than %d bytes", path, MaxSize)
	}
	return Parse(ctx, path, io.LimitReader(f, MaxSize))
}

// Parse reads transcript events from r, one JSON object a line; name is
// the transcript in errors. A last line without its newline is still
// being written and is left out.
func Parse(ctx context.Context, name string, r io.Reader) ([]Event, error) {
	var events []Event
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		line, err := br.ReadBytes('\n')
		if err == io.EOF {
			return events, nil // a line without its newline is still being written
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		var ev Event
		if err := json.Unmarshal(line, &ev); err != nil {
			return nil, failure.Wrap(failure.InvalidInput, err, "%s:%d: not a transcript event", name, n)
		}
		events = append(events, ev)
	}
}

// Find returns the path of run id's transcript, or of the newest run when
// id is empty. The path is confined to the workspace: a transcript (or
// .langhost/runs) that is a symlink leading out of it is refused with
// precondition_failed.
func Find(ws *workspace.Root, id string) (string, error) {
	dir, err := ws.Resolve("", Dir)
	if err != nil {
		return "", fmt.Errorf("transcripts: %w", err)
	}
	if id != "" {
		if !idRE().MatchString(id) {
			return "", &failure.Error{Code: failure.InvalidInput, Field: "run", Message: fmt.Sprintf("%q is not a run id (letters, digits and '-')", id)}
		}
		p, err := ws.ResolveRead("run", path.Join(Dir, id+".jsonl"))
		if failure.CodeOf(err) == failure.NotFound {
			return "", &failure.Error{Code: failure.NotFound, Field: "run", Message: fmt.Sprintf("no run %q in %s", id, Dir)}
		}
		return p, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("transcripts: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".jsonl") {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return "", failure.New(failure.NotFound, "no agent runs in %s yet: start one with langhost agent run", Dir)
	}
	slices.Sort(names)
	return filepath.Join(dir, names[len(names)-1]), nil
}

// Status sums up a run from its events.
type Status struct {
	Run         string      `json:"run"`
	Agent       string      `json:"agent"`
	Workflow    string      `json:"workflow,omitempty"`
	Task        string      `json:"task"`
	State       string      `json:"state"` // running, finished or crashed
	Role        string      `json:"role"`  // the current (or last) role
	Step        int         `json:"step"`
	ToolCalls   int         `json:"tool_calls"`
	Escalations int         `json:"escalations"`
	Tokens      model.Usage `json:"tokens"`
	StopReason  string      `json:"stop_reason,omitempty"`
	Answer      string      `json:"answer,omitempty"`
	Error       string      `json:"error,omitempty"`
	Started     time.Time   `json:"started"`
	Updated     time.Time   `json:"updated"`
	Transcript  string      `json:"transcript"`
	// PID is the process running (or that ran) the run, if recorded.
	PID int `json:"pid,omitempty"`
}

// Run states and the stop reason of a crashed run.
const (
	StateRunning  = "running"
	StateFinished = "finished"
	StateCrashed  = "crashed"
)

// Summarize folds events into a Status. A run without run_end whose
// process is gone (killed, crashed, the machine rebooted) is crashed, not
// running: it checks the process recorded in run_start when that process
// ran on this host.
func Summarize(path string, events []Event) Status {
	s := Status{State: StateRunning, Transcript: path}
	var start Event
	for _, ev := range events {
		s.Updated = ev.Time
		if ev.Role != "" {
			s.Role = ev.Role
		}
		s.Step = max(s.Step, ev.Step)
		switch ev.Type {
		case RunStart:
			s.Run, s.Agent, s.Workflow, s.Task, s.Started, s.PID = ev.Run, ev.Agent, ev.Workflow, ev.Task, ev.Time, ev.PID
			start = ev
		case ModelCall:
			if ev.Usage != nil {
				s.Tokens.InputTokens += ev.Usage.InputTokens
				s.Tokens.OutputTokens += ev.Usage.OutputTokens
			}
		case ToolCall:
			s.ToolCalls++
		case Escalation:
			s.Escalations++
		case RoleChange:
			s.Role = ev.To
		case RunEnd:
			s.State, s.StopReason, s.Answer, s.Error = StateFinished, ev.StopReason, ev.Answer, ev.Error
		}
	}
	if s.State == StateRunning && processGone(start) {
		s.State, s.StopReason = StateCrashed, StateCrashed
		s.Error = fmt.Sprintf("the run's process (pid %d) ended without finishing the run: it was killed or crashed", start.PID)
	}
	return s
}

// processGone reports whether the process that wrote run_start has
// certainly exited. Unknown (no pid, another host, no way to check) is
// not gone: a run must not be called crashed while it may be going.
func processGone(start Event) bool {
	if start.PID <= 0 {
		return false
	}
	if host, err := os.Hostname(); err != nil || host != start.Host {
		return false
	}
	return procgroup.Exited(start.PID, start.ProcStart)
}
