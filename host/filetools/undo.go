package filetools

import (
	"context"

	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/internal/txnlog"
)

type undoInput struct {
	ID string `json:"id,omitempty" jsonschema:"transaction id (transaction_id of a write's result); default: the newest not undone"`
}

// undo restores the files of a transaction, for agents (the CLI has
// langhost undo): refused, naming the files, when one changed since.
func (ts *tools) undo(ctx context.Context, call registry.Call) (any, error) {
	var in undoInput
	if err := decode(call.Input, &in); err != nil {
		return nil, err
	}
	return txnlog.Undo(ctx, ts.opts.Workspace.Dir(), in.ID)
}
