package daemon

import (
	"errors"
	"time"

	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// The HTTP API on the socket. Bodies are JSON.
const (
	pathCall   = "/v1/call"   // POST CallRequest -> callResponse
	pathStatus = "/v1/status" // GET -> Status
	pathStop   = "/v1/stop"   // POST -> Status of the daemon that stops

	// fingerprintHeader carries the caller's Identity.Fingerprint on calls.
	fingerprintHeader = "Langhost-Fingerprint"

	// maxRequest bounds a call's body; tool input is a few keys.
	maxRequest = 8 << 20
)

// CallRequest is one tool call.
type CallRequest struct {
	Tool      string         `json:"tool"`
	Input     map[string]any `json:"input"`
	Confirmed bool           `json:"confirmed"`
	// WorkspaceCode is the caller's consent to run the workspace's code
	// (registry.Call.WorkspaceCode).
	WorkspaceCode bool `json:"workspace_code,omitempty"`
}

// callResponse is the outcome of a call: what registry.Registry.Call
// returned, the error classified for the wire.
type callResponse struct {
	Result *registry.Result `json:"result,omitempty"`
	Errors []wireError      `json:"errors,omitempty"`
}

// wireError is a failure as the CLI's envelope shows it: the full text,
// the class, and the key and details a caller acts on.
type wireError struct {
	Code    failure.Code   `json:"code"`
	Message string         `json:"message"`
	Field   string         `json:"field,omitempty"`
	Details map[string]any `json:"details,omitempty"`
}

// Status describes a running daemon.
type Status struct {
	PID           int       `json:"pid"`
	Version       string    `json:"version"`
	Workspace     string    `json:"workspace"`
	Socket        string    `json:"socket"`
	Log           string    `json:"log,omitempty"`
	Fingerprint   string    `json:"fingerprint"`
	PathHash      string    `json:"pathHash,omitempty"` // see Identity.PathHash
	Started       time.Time `json:"started"`
	UptimeMS      int64     `json:"uptimeMs"`
	IdleMS        int64     `json:"idleMs"` // since the last call ended; 0 while one runs
	IdleTimeoutMS int64     `json:"idleTimeoutMs"`
	Calls         int64     `json:"calls"`  // calls served
	Active        int       `json:"active"` // calls running
	// Processes are the daemon and its descendants (plugins, language
	// servers); RSSBytes is their total resident memory. Known only where
	// the process table can be read (Linux): elsewhere Processes is empty
	// and RSSBytes is -1.
	Processes []Process `json:"processes"`
	RSSBytes  int64     `json:"rssBytes"`
}

// Process is one process of a daemon's tree.
type Process struct {
	PID     int    `json:"pid"`
	PPID    int    `json:"ppid"`
	Command string `json:"command"`
	// Name is what the process is, e.g. gopls, pyright-langserver,
	// tsserver, not the interpreter that runs it (node): see processName.
	Name     string `json:"name"`
	RSSBytes int64  `json:"rssBytes"`
}

// encodeErrors flattens err (errors.Join gives one entry per error) the way
// the CLI's envelope does.
func encodeErrors(err error) []wireError {
	if err == nil {
		return nil
	}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var out []wireError
		for _, e := range joined.Unwrap() {
			out = append(out, encodeErrors(e)...)
		}
		return out
	}
	we := wireError{Code: failure.CodeOf(err), Message: err.Error()}
	var fe *failure.Error
	if errors.As(err, &fe) {
		we.Field, we.Details = fe.Field, fe.Details
	}
	return []wireError{we}
}

// decodeErrors rebuilds the errors encodeErrors flattened: the same text,
// class, field and details, so the CLI prints the same envelope and exits
// with the same code as when the call ran in its own process.
func decodeErrors(wes []wireError) error {
	errs := make([]error, len(wes))
	for i, we := range wes {
		code := we.Code
		if code == "" {
			code = failure.Internal
		}
		errs[i] = &remoteError{text: we.Message, inner: &failure.Error{Code: code, Message: we.Message, Field: we.Field, Details: we.Details}}
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

// remoteError keeps the daemon's error text; Unwrap exposes the failure
// for failure.CodeOf and the field and details.
type remoteError struct {
	text  string
	inner *failure.Error
}

func (e *remoteError) Error() string { return e.text }
func (e *remoteError) Unwrap() error { return e.inner }
