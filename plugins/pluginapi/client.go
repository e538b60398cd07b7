package pluginapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"

	"google.golang.org/grpc"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
	pb "github.com/langhost/langhost/plugins/proto"
)

// RemoteAgent is the host side of a plugin: an Agent whose calls travel
// over gRPC to the plugin process. Errors the agent returned come back as
// the same failure class; a broken connection comes back as a
// failure.Internal error wrapping a *ConnectionError.
type RemoteAgent struct {
	client pb.SemanticAgentClient
	done   <-chan struct{}
}

var _ Agent = (*RemoteAgent)(nil)

// NewRemoteAgent returns an Agent calling the SemanticAgent service on
// conn. done is closed when the plugin process has exited; it may be nil.
func NewRemoteAgent(conn grpc.ClientConnInterface, done <-chan struct{}) *RemoteAgent {
	return &RemoteAgent{client: pb.NewSemanticAgentClient(conn), done: done}
}

// Done is closed once the plugin process has exited (never, when unknown).
func (a *RemoteAgent) Done() <-chan struct{} { return a.done }

// Describe implements Agent.
func (a *RemoteAgent) Describe(ctx context.Context) (*Description, error) {
	resp, err := a.client.Describe(ctx, &pb.DescribeRequest{})
	if err != nil {
		return nil, errorFromStatus(ctx, "Describe", true, err)
	}
	d := &Description{Name: resp.Name, Version: resp.Version}
	for _, op := range resp.Operations {
		d.Operations = append(d.Operations, Operation{
			Name:          op.Name,
			Description:   op.Description,
			InputSchema:   op.InputSchema,
			OutputSchema:  op.OutputSchema,
			SideEffects:   op.SideEffects,
			FailureCodes:  op.FailureCodes,
			WorkspaceCode: op.WorkspaceCode,
			NoServer:      op.NoServer,
		})
	}
	return d, nil
}

// Open implements Agent.
func (a *RemoteAgent) Open(ctx context.Context, req OpenRequest, progress ProgressFunc) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the stream if we return early
	stream, err := a.client.Open(ctx, &pb.OpenRequest{Root: req.Root, Language: req.Language, Config: req.Config})
	if err != nil {
		return errorFromStatus(ctx, "Open", false, err)
	}
	delivered := accepted(stream)
	for {
		ev, err := stream.Recv()
		if err != nil {
			return streamError(ctx, "Open", delivered, err)
		}
		switch e := ev.Event.(type) {
		case *pb.OpenEvent_Progress:
			reportProgress(progress, e.Progress)
		case *pb.OpenEvent_Result:
			return nil
		}
	}
}

// Invoke implements Agent.
func (a *RemoteAgent) Invoke(ctx context.Context, req InvokeRequest, progress ProgressFunc) (json.RawMessage, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := a.client.Invoke(ctx, &pb.InvokeRequest{
		Operation: req.Operation,
		Input:     req.Input,
		Confirmed: req.Confirmed,
	})
	if err != nil {
		return nil, errorFromStatus(ctx, "Invoke", false, err)
	}
	delivered := accepted(stream)
	for {
		ev, err := stream.Recv()
		if err != nil {
			return nil, streamError(ctx, "Invoke", delivered, err)
		}
		switch e := ev.Event.(type) {
		case *pb.InvokeEvent_Progress:
			reportProgress(progress, e.Progress)
		case *pb.InvokeEvent_Result:
			return json.RawMessage(e.Result.Output), nil
		}
	}
}

// Status implements Agent.
func (a *RemoteAgent) Status(ctx context.Context) (*Status, error) {
	resp, err := a.client.Status(ctx, &pb.StatusRequest{})
	if err != nil {
		return nil, errorFromStatus(ctx, "Status", true, err)
	}
	return &Status{
		Ready:     resp.Ready,
		Server:    resp.Server,
		ServerPID: int(resp.ServerPid),
		Message:   resp.Message,
	}, nil
}

// Shutdown implements Agent.
func (a *RemoteAgent) Shutdown(ctx context.Context) error {
	if _, err := a.client.Shutdown(ctx, &pb.ShutdownRequest{}); err != nil {
		return errorFromStatus(ctx, "Shutdown", true, err)
	}
	return nil
}

// streamError converts the error that ended a stream before its result.
func streamError(ctx context.Context, method string, delivered bool, err error) error {
	if errors.Is(err, io.EOF) {
		// The server always sends a result or a status, so a clean end
		// without one is a broken plugin.
		return failure.New(failure.Internal, "plugin ended %s without a result", method)
	}
	return errorFromStatus(ctx, method, delivered, err)
}

// accepted waits for the header the server sends before it hands a call
// to the agent. Without it the call never reached the agent; the error
// itself comes from the stream's Recv.
func accepted(stream grpc.ClientStream) bool {
	md, err := stream.Header()
	// grpc-go reports a stream that failed before its header as a nil
	// header and no error; a received header is never nil.
	return err == nil && md != nil
}

func reportProgress(progress ProgressFunc, p *pb.Progress) {
	if progress != nil && p != nil {
		progress(Progress{Message: p.Message, Percent: p.Percent})
	}
}
