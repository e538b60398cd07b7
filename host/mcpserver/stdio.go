package mcpserver

import (
	"context"
	"errors"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio serves srv on stdin/stdout until the client closes stdin or
// ctx is done. Nothing else may write to stdout meanwhile.
func ServeStdio(ctx context.Context, srv *mcp.Server) error {
	err := srv.Run(ctx, &mcp.StdioTransport{})
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return failure.Wrap(failure.Internal, err, "serve MCP on stdio")
}
