package semantic

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/langhost/langhost/internal/lsptest/roslyntest"
	"github.com/langhost/langhost/plugins/pluginapi"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// TestReadyTimeoutCountsFromProgress: readyTimeout is how long a starting
// server may show no sign of progress, not how long it may load. A slow
// load is what a real server cannot be made to do on demand, so the server
// is the scripted peer in the csharp-ls flavor: a load four times longer
// than readyTimeout that reports as it goes is waited for; a server that
// falls silent is stopped after readyTimeout; one that reports forever
// without becoming ready is stopped after 10 × readyTimeout. Each failure
// is a timeout naming the server and semantic.readyTimeout, and leaves no
// server running.
func TestReadyTimeoutCountsFromProgress(t *testing.T) {
	bin := roslyntest.Build(t)
	cfg := Config{
		Command:      bin,
		Dialect:      DialectCSharpLS,
		RootMarkers:  []string{"*.sln", "*.slnx", "*.csproj"},
		LanguageIDs:  map[string]string{".cs": "csharp"},
		ReadyTimeout: "1s",
	}
	tests := []struct {
		name string
		env  map[string]string
		want string // in the error; "" when the server becomes ready
	}{
		{"loading with reports", map[string]string{"FAKEROSLYN_LOAD_DELAY": "4s", "FAKEROSLYN_LOAD_REPORT": "50ms"}, ""},
		{"silent", map[string]string{"FAKEROSLYN_NEVER_READY": "1"},
			"showed no sign of progress (a progress report or log message) for 1s (semantic.readyTimeout)"},
		{"reports forever", map[string]string{"FAKEROSLYN_NEVER_READY": "1", "FAKEROSLYN_LOAD_REPORT": "50ms"},
			"did not become ready within 10s (10 × semantic.readyTimeout), although it kept showing progress"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("FAKEROSLYN_FLAVOR", "csharp-ls")
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			root := copyTree(t, roslyntest.Shapes())
			e := New(testLogger())
			defer e.Shutdown(context.Background())
			raw, _ := json.Marshal(cfg)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			err := e.Open(ctx, pluginapi.OpenRequest{Root: root, Language: "csharp", Config: raw}, nil)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("a server loading for 4 × readyTimeout while reporting progress was stopped: %v", err)
				}
				out := mustInvoke(t, e, "find_implementations", map[string]any{"symbol": "IShape"})
				if got := locOf(t, out, "implementations.0"); got != "src/Shapes/Circle.cs:3:14" {
					t.Errorf("after the slow load: %s", dump(out))
				}
				return
			}
			fe := wantCode(t, err, failure.Timeout, "")
			if !strings.Contains(fe.Error(), tt.want) || !strings.Contains(fe.Error(), "language server csharp-ls ") {
				t.Errorf("error %q lacks %q or the server's name", fe.Error(), tt.want)
			}
			if pid := e.ServerPID(); pid != 0 {
				t.Errorf("server %d left running after the failed start", pid)
			}
		})
	}
}
