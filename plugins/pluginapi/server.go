package pluginapi

import (
	"context"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	pb "github.com/langhost/langhost/plugins/proto"
)

// agentServer serves an Agent as the semantic.v1.SemanticAgent service in
// the plugin process.
type agentServer struct {
	pb.UnimplementedSemanticAgentServer
	impl Agent
}

func (s *agentServer) Describe(ctx context.Context, _ *pb.DescribeRequest) (*pb.DescribeResponse, error) {
	d, err := s.impl.Describe(ctx)
	if err != nil {
		return nil, statusFromError(err)
	}
	return describeToProto(d), nil
}

func (s *agentServer) Open(req *pb.OpenRequest, stream grpc.ServerStreamingServer[pb.OpenEvent]) error {
	// The empty header tells the client the call was accepted; see
	// ConnectionError.Delivered.
	if err := stream.SendHeader(metadata.MD{}); err != nil {
		return err
	}
	send := newProgressStream(func(p *pb.Progress) error {
		return stream.Send(&pb.OpenEvent{Event: &pb.OpenEvent_Progress{Progress: p}})
	})
	err := s.impl.Open(stream.Context(), openFromProto(req), send.report)
	send.stop()
	if err != nil {
		return statusFromError(err)
	}
	return stream.Send(&pb.OpenEvent{Event: &pb.OpenEvent_Result{Result: &pb.OpenResult{}}})
}

func (s *agentServer) Invoke(req *pb.InvokeRequest, stream grpc.ServerStreamingServer[pb.InvokeEvent]) error {
	if err := stream.SendHeader(metadata.MD{}); err != nil {
		return err
	}
	send := newProgressStream(func(p *pb.Progress) error {
		return stream.Send(&pb.InvokeEvent{Event: &pb.InvokeEvent_Progress{Progress: p}})
	})
	out, err := s.impl.Invoke(stream.Context(), InvokeRequest{
		Operation: req.Operation,
		Input:     req.Input,
		Confirmed: req.Confirmed,
	}, send.report)
	send.stop()
	if err != nil {
		return statusFromError(err)
	}
	return stream.Send(&pb.InvokeEvent{Event: &pb.InvokeEvent_Result{Result: &pb.InvokeResult{Output: out}}})
}

func (s *agentServer) Status(ctx context.Context, _ *pb.StatusRequest) (*pb.StatusResponse, error) {
	st, err := s.impl.Status(ctx)
	if err != nil {
		return nil, statusFromError(err)
	}
	return &pb.StatusResponse{
		Ready:     st.Ready,
		Server:    st.Server,
		ServerPid: int64(st.ServerPID),
		Message:   st.Message,
	}, nil
}

func (s *agentServer) Shutdown(ctx context.Context, _ *pb.ShutdownRequest) (*pb.ShutdownResponse, error) {
	if err := s.impl.Shutdown(ctx); err != nil {
		return nil, statusFromError(err)
	}
	return &pb.ShutdownResponse{}, nil
}

// progressStream serialises progress reports onto a stream: agents may
// report from several goroutines, a gRPC stream allows one sender at a
// time, and reports after the call returned must be dropped.
type progressStream struct {
	mu      sync.Mutex
	send    func(*pb.Progress) error
	stopped bool
}

func newProgressStream(send func(*pb.Progress) error) *progressStream {
	return &progressStream{send: send}
}

func (s *progressStream) report(p Progress) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return
	}
	// A send error means the client went away; the call's context is
	// cancelled by gRPC, which is how the agent learns about it.
	_ = s.send(&pb.Progress{Message: p.Message, Percent: p.Percent})
}

func (s *progressStream) stop() {
	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
}

func describeToProto(d *Description) *pb.DescribeResponse {
	resp := &pb.DescribeResponse{Name: d.Name, Version: d.Version}
	for _, op := range d.Operations {
		resp.Operations = append(resp.Operations, &pb.Operation{
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
	return resp
}

func openFromProto(req *pb.OpenRequest) OpenRequest {
	return OpenRequest{Root: req.Root, Language: req.Language, Config: req.Config}
}
