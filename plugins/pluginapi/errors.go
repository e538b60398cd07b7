package pluginapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
	pb "github.com/langhost/langhost/plugins/proto"
)

// ConnectionError reports that a call failed because the connection to the
// plugin process broke, usually because the process exited. It is wrapped in
// a failure.Internal error.
type ConnectionError struct {
	Method string // the Agent method, e.g. "Invoke"
	// Delivered is false only when the plugin certainly never started the
	// call, so repeating it on a new process cannot run it twice.
	Delivered bool
	Err       error
}

func (e *ConnectionError) Error() string {
	return fmt.Sprintf("connection to plugin lost during %s: %v", e.Method, e.Err)
}

func (e *ConnectionError) Unwrap() error { return e.Err }

// statusFromError encodes an agent error as a gRPC status carrying a
// pb.Failure detail, so the client can rebuild the same failure class.
func statusFromError(err error) error {
	f := &pb.Failure{Text: err.Error()}
	var fe *failure.Error
	if errors.As(err, &fe) {
		f.Code = string(fe.Code)
		f.Message = fe.Message
		f.Field = fe.Field
		if fe.Err != nil {
			f.Cause = fe.Err.Error()
		}
		if len(fe.Details) > 0 {
			details, jerr := json.Marshal(fe.Details)
			if jerr != nil {
				details, _ = json.Marshal(map[string]string{"unencodable": fmt.Sprint(fe.Details)})
			}
			f.Details = details
		}
	} else {
		f.Code = string(failure.CodeOf(err))
		f.Message = err.Error()
	}
	st, serr := status.New(grpcCode(failure.Code(f.Code)), f.Text).WithDetails(f)
	if serr != nil {
		// Only reachable if pb.Failure cannot be marshalled.
		return status.Error(codes.Internal, err.Error())
	}
	return st.Err()
}

// grpcCode picks the gRPC code closest to a failure class; it only makes
// the status readable in gRPC tooling, the pb.Failure detail is what counts.
func grpcCode(c failure.Code) codes.Code {
	switch c {
	case failure.InvalidInput, failure.Ambiguous:
		return codes.InvalidArgument
	case failure.NotFound:
		return codes.NotFound
	case failure.Precondition:
		return codes.FailedPrecondition
	case failure.Timeout:
		return codes.DeadlineExceeded
	case failure.Canceled:
		return codes.Canceled
	case failure.Unsupported:
		return codes.Unimplemented
	case failure.ToolFailed:
		return codes.Aborted
	default:
		return codes.Internal
	}
}

// remoteError keeps the agent's full error text when the agent wrapped its
// *failure.Error in more context; Unwrap exposes the failure for CodeOf.
type remoteError struct {
	text  string
	inner *failure.Error
}

func (e *remoteError) Error() string { return e.text }
func (e *remoteError) Unwrap() error { return e.inner }

// errorFromStatus turns the error of a gRPC call back into the error the
// agent returned, a context error of the caller, or a ConnectionError.
func errorFromStatus(ctx context.Context, method string, delivered bool, err error) error {
	st, _ := status.FromError(err)
	for _, d := range st.Details() {
		if f, ok := d.(*pb.Failure); ok {
			return decodeFailure(f)
		}
	}
	if cerr := ctx.Err(); cerr != nil {
		code := failure.Canceled
		if errors.Is(cerr, context.DeadlineExceeded) {
			code = failure.Timeout
		}
		return failure.Wrap(code, cerr, "plugin call %s", method)
	}
	// gRPC can see the caller's deadline pass a moment before ctx reports
	// it; the status code then says what happened.
	switch st.Code() {
	case codes.DeadlineExceeded:
		return failure.Wrap(failure.Timeout, context.DeadlineExceeded, "plugin call %s", method)
	case codes.Canceled:
		if ctx.Done() != nil { // only a cancellable caller can have cancelled
			return failure.Wrap(failure.Canceled, context.Canceled, "plugin call %s", method)
		}
	}
	if st.Code() == codes.Unimplemented {
		return failure.Wrap(failure.Unsupported, err, "plugin does not implement %s", method)
	}
	cerr := &ConnectionError{Method: method, Delivered: delivered, Err: err}
	return &failure.Error{Code: failure.Internal, Err: cerr}
}

func decodeFailure(f *pb.Failure) error {
	fe := &failure.Error{
		Code:    failure.Code(f.Code),
		Message: f.Message,
		Field:   f.Field,
	}
	if f.Code == "" {
		fe.Code = failure.Internal
	}
	if f.Cause != "" {
		fe.Err = errors.New(f.Cause)
	}
	if len(f.Details) > 0 {
		if err := json.Unmarshal(f.Details, &fe.Details); err != nil {
			fe.Details = map[string]any{"raw": string(f.Details)}
		}
	}
	if f.Text != "" && f.Text != fe.Error() {
		return &remoteError{text: f.Text, inner: fe}
	}
	return fe
}
