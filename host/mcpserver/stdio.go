package mcpserver

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio serves srv on stdin/stdout until the client closes stdin or
// ctx is done. Nothing else may write to stdout meanwhile. Malformed input
// lines are answered with JSON-RPC errors and do not end the session.
func ServeStdio(ctx context.Context, srv *mcp.Server) error {
	return serveLines(ctx, srv, os.Stdin, os.Stdout)
}

// serveLines serves srv on newline-delimited JSON-RPC read from in and
// written to out.
func serveLines(ctx context.Context, srv *mcp.Server, in io.ReadCloser, out io.Writer) error {
	bindRequests(ctx, srv) // Run waits for requests in flight: end them when ctx ends
	err := srv.Run(ctx, &lineTransport{in: in, out: out})
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return failure.Wrap(failure.Internal, err, "serve MCP on stdio")
}
