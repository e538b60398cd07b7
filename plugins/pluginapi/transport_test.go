package pluginapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/langhost/langhost/plugins/pluginapi"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/langhost/langhost/plugins/pluginapi/internal/testagent"
)

// connect serves agent on an in-memory gRPC connection, registered exactly
// as go-plugin registers it, and returns the host-side Agent.
func connect(t testing.TB, agent pluginapi.Agent) (*pluginapi.RemoteAgent, *grpc.Server) {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer()
	if err := (&pluginapi.GRPCPlugin{Impl: agent}).GRPCServer(nil, srv); err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	conn, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close()
		srv.Stop()
	})
	raw, err := (&pluginapi.GRPCPlugin{}).GRPCClient(context.Background(), nil, conn)
	if err != nil {
		t.Fatal(err)
	}
	return raw.(*pluginapi.RemoteAgent), srv
}

func newAgent() *testagent.Agent { return testagent.New(hclog.NewNullLogger()) }

func TestDescribeRoundTrip(t *testing.T) {
	local := newAgent()
	remote, _ := connect(t, local)
	want, err := local.Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got, err := remote.Describe(context.Background())
	if err != nil {
		t.Fatalf("Describe: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Describe over gRPC:\n got %+v\nwant %+v", got, want)
	}
}

func TestInvokeEcho(t *testing.T) {
	remote, _ := connect(t, newAgent())
	in := json.RawMessage(`{"text":"héllo","n":[1,2,3]}`)
	out, err := remote.Invoke(context.Background(), pluginapi.InvokeRequest{Operation: "echo", Input: in}, nil)
	if err != nil {
		t.Fatalf("Invoke echo: %v", err)
	}
	if string(out) != string(in) {
		t.Errorf("echo = %s, want %s", out, in)
	}
}

func TestOpenAndStatus(t *testing.T) {
	remote, _ := connect(t, newAgent())
	ctx := context.Background()
	req := pluginapi.OpenRequest{Root: "/ws", Language: "go", Config: json.RawMessage(`{"child":false}`)}
	var progress []pluginapi.Progress
	if err := remote.Open(ctx, req, func(p pluginapi.Progress) { progress = append(progress, p) }); err != nil {
		t.Fatalf("Open: %v", err)
	}
	want := []pluginapi.Progress{{Message: "loading workspace", Percent: 50}, {Message: "workspace loaded", Percent: 100}}
	if !reflect.DeepEqual(progress, want) {
		t.Errorf("Open progress = %+v, want %+v", progress, want)
	}
	st, err := remote.Status(ctx)
	if err != nil {
		t.Fatalf("Status: %v", err)
	}
	if !st.Ready || st.Server != "testagent-child" {
		t.Errorf("Status = %+v, want ready testagent-child", st)
	}
	out, err := remote.Invoke(ctx, pluginapi.InvokeRequest{Operation: "opened"}, nil)
	if err != nil {
		t.Fatalf("Invoke opened: %v", err)
	}
	var opened testagent.OpenedOutput
	if err := json.Unmarshal(out, &opened); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(opened.Request, req) {
		t.Errorf("agent saw open request %+v, want %+v", opened.Request, req)
	}
	if err := remote.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
}

// TestErrorClassPreserved checks that an error crossing the process
// boundary keeps its failure class, field, details and text.
func TestErrorClassPreserved(t *testing.T) {
	ctx := context.Background()
	local := newAgent()
	remote, _ := connect(t, local)
	tests := []struct {
		name string
		req  pluginapi.InvokeRequest
	}{
		{"failure", pluginapi.InvokeRequest{Operation: "fail", Input: json.RawMessage(`{"symbol":"Foo"}`)}},
		{"wrapped failure", pluginapi.InvokeRequest{Operation: "fail", Input: json.RawMessage(`{"symbol":"Foo","wrap":true}`)}},
		{"failure with cause", pluginapi.InvokeRequest{Operation: "sleep", Input: json.RawMessage(`{"ms":"x"}`)}},
		{"unknown operation", pluginapi.InvokeRequest{Operation: "nope"}},
		{"precondition", pluginapi.InvokeRequest{Operation: "opened"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, want := local.Invoke(ctx, tt.req, nil)
			_, got := remote.Invoke(ctx, tt.req, nil)
			if want == nil || got == nil {
				t.Fatalf("errors: local %v, remote %v; want both non-nil", want, got)
			}
			if failure.CodeOf(got) != failure.CodeOf(want) {
				t.Errorf("CodeOf(remote) = %s, want %s", failure.CodeOf(got), failure.CodeOf(want))
			}
			if got.Error() != want.Error() {
				t.Errorf("remote error text = %q, want %q", got.Error(), want.Error())
			}
			var gf, wf *failure.Error
			if !errors.As(got, &gf) || !errors.As(want, &wf) {
				t.Fatalf("remote error %T is not a *failure.Error", got)
			}
			if gf.Field != wf.Field || gf.Message != wf.Message {
				t.Errorf("remote field/message = %q/%q, want %q/%q", gf.Field, gf.Message, wf.Field, wf.Message)
			}
			// Details travel as JSON, so compare their JSON forms.
			gd, _ := json.Marshal(gf.Details)
			wd, _ := json.Marshal(wf.Details)
			if string(gd) != string(wd) {
				t.Errorf("remote details = %s, want %s", gd, wd)
			}
		})
	}
}

func TestPlainErrorIsInternal(t *testing.T) {
	remote, _ := connect(t, errAgent{newAgent()})
	_, err := remote.Describe(context.Background())
	if failure.CodeOf(err) != failure.Internal || err.Error() != "disk on fire" {
		t.Errorf("Describe error = %v (%s), want internal %q", err, failure.CodeOf(err), "disk on fire")
	}
}

type errAgent struct{ *testagent.Agent }

func (errAgent) Describe(context.Context) (*pluginapi.Description, error) {
	return nil, errors.New("disk on fire")
}

func TestProgressInOrder(t *testing.T) {
	remote, _ := connect(t, newAgent())
	const n = 200
	var got []string
	out, err := remote.Invoke(context.Background(), pluginapi.InvokeRequest{
		Operation: "progress", Input: json.RawMessage(`{"count":200}`),
	}, func(p pluginapi.Progress) { got = append(got, p.Message) })
	if err != nil {
		t.Fatalf("Invoke progress: %v", err)
	}
	if string(out) != `{"count":200}` {
		t.Errorf("output = %s", out)
	}
	if len(got) != n {
		t.Fatalf("got %d progress messages, want %d", len(got), n)
	}
	for i, msg := range got {
		if want := "step " + strconv.Itoa(i+1); msg != want {
			t.Fatalf("progress[%d] = %q, want %q", i, msg, want)
		}
	}
}

// TestCancellationReachesAgent checks that cancelling the caller's context
// cancels the context the agent runs with.
func TestCancellationReachesAgent(t *testing.T) {
	remote, _ := connect(t, newAgent())
	marker := filepath.Join(t.TempDir(), "canceled")
	input, _ := json.Marshal(testagent.SleepInput{Millis: 60_000, Marker: marker})

	tests := []struct {
		name     string
		ctx      func() (context.Context, context.CancelFunc)
		wantCode failure.Code
	}{
		{"cancel", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(100*time.Millisecond, cancel)
			return ctx, cancel
		}, failure.Canceled},
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 100*time.Millisecond)
		}, failure.Timeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(marker)
			ctx, cancel := tt.ctx()
			defer cancel()
			_, err := remote.Invoke(ctx, pluginapi.InvokeRequest{Operation: "sleep", Input: input}, nil)
			if failure.CodeOf(err) != tt.wantCode {
				t.Fatalf("Invoke error = %v (%s), want %s", err, failure.CodeOf(err), tt.wantCode)
			}
			waitForFile(t, marker)
		})
	}
}

func waitForFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("agent never wrote %s: its context was not cancelled", path)
}

// TestConnectionLost checks that a call on a dead connection is reported
// as an internal failure wrapping a ConnectionError.
func TestConnectionLost(t *testing.T) {
	remote, srv := connect(t, newAgent())
	srv.Stop()
	_, err := remote.Invoke(context.Background(), pluginapi.InvokeRequest{Operation: "echo", Input: json.RawMessage(`{}`)}, nil)
	var cerr *pluginapi.ConnectionError
	if !errors.As(err, &cerr) || failure.CodeOf(err) != failure.Internal {
		t.Fatalf("Invoke after server stop = %v (%s), want internal ConnectionError", err, failure.CodeOf(err))
	}
	if cerr.Delivered {
		t.Errorf("ConnectionError.Delivered = true for a call the server never saw")
	}
}

func BenchmarkInvokeEchoInProcess(b *testing.B) {
	remote, _ := connect(b, newAgent())
	req := pluginapi.InvokeRequest{Operation: "echo", Input: json.RawMessage(`{"file":"main.go","line":12,"column":4}`)}
	ctx := context.Background()
	for b.Loop() {
		if _, err := remote.Invoke(ctx, req, nil); err != nil {
			b.Fatal(err)
		}
	}
}
