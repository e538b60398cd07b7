package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/toolname"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An edit tool (rename, code_actions, organize_imports, format, ...)
// answers without apply with a preview: files[] with each file's sha256
// and diff. Over MCP a client has no way to confirm such a preview, so the
// server keeps it under a random id, adds preview_id to the result, and
// langhost_apply runs the same call again with apply and expect set to the
// preview's hashes: the plugin then writes exactly what was previewed, or
// refuses with precondition_failed if a file changed meanwhile.

// ApplyToolID is the id of the apply tool; its MCP name is langhost_apply.
const ApplyToolID = "langhost.apply"

// Defaults of the preview store.
const (
	DefaultPreviewTTL  = 15 * time.Minute
	DefaultMaxPreviews = 64
)

const previewIDKey = "preview_id"

// preview is a stored edit preview.
type preview struct {
	tool    string         // tool id
	input   map[string]any // the preview call's input
	expect  map[string]string
	created time.Time
}

// previews is a bounded in-memory store: the oldest entry goes when it is
// full, and entries expire after ttl.
type previews struct {
	ttl time.Duration
	max int
	now func() time.Time

	mu    sync.Mutex
	byID  map[string]*preview
	order []string // ids, oldest first
}

func newPreviews(ttl time.Duration, max int) *previews {
	if ttl <= 0 {
		ttl = DefaultPreviewTTL
	}
	if max <= 0 {
		max = DefaultMaxPreviews
	}
	return &previews{ttl: ttl, max: max, now: time.Now, byID: map[string]*preview{}}
}

func (p *previews) put(pv *preview) (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	id := hex.EncodeToString(b[:])
	p.mu.Lock()
	defer p.mu.Unlock()
	p.expire()
	for len(p.order) >= p.max {
		delete(p.byID, p.order[0])
		p.order = p.order[1:]
	}
	pv.created = p.now()
	p.byID[id] = pv
	p.order = append(p.order, id)
	return id, nil
}

func (p *previews) get(id string) (*preview, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.expire()
	pv, ok := p.byID[id]
	return pv, ok
}

func (p *previews) remove(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.byID, id)
	for i, o := range p.order {
		if o == id {
			p.order = append(p.order[:i], p.order[i+1:]...)
			break
		}
	}
}

// expire drops entries older than ttl; p.mu is held.
func (p *previews) expire() {
	cut := p.now().Add(-p.ttl)
	for len(p.order) > 0 && !p.byID[p.order[0]].created.After(cut) {
		delete(p.byID, p.order[0])
		p.order = p.order[1:]
	}
}

// offersPreview reports whether t can write a preview it returned: its
// input takes apply and expect.
func offersPreview(t *registry.Tool) bool {
	if t.InputSchema == nil {
		return false
	}
	_, apply := t.InputSchema.Properties["apply"]
	_, expect := t.InputSchema.Properties["expect"]
	return apply && expect
}

// serveApply reports whether langhost_apply is served with tools: when one
// of them offers previews, except in the readonly profile.
func serveApply(opts Options, tools []*registry.Tool) bool {
	if opts.Profile == ProfileReadOnly {
		return false
	}
	for _, t := range tools {
		if offersPreview(t) {
			return true
		}
	}
	return false
}

// notePreview stores the preview in res, if it is one, and adds its id to
// the result.
func (srv *Server) notePreview(t *registry.Tool, req *mcp.CallToolRequest, res *mcp.CallToolResult) {
	st, ok := res.StructuredContent.(structured)
	if !ok || st.Result == nil || len(st.Result.Data) == 0 {
		return
	}
	// The operation's own answer: its files[] sit beside the result's
	// keys, and registry.Result has a files key of its own.
	var out struct {
		Applied bool    `json:"applied"`
		Diff    *string `json:"diff"`
		Files   []struct {
			File   string `json:"file"`
			SHA256 string `json:"sha256"`
		} `json:"files"`
	}
	if json.Unmarshal(st.Result.Data, &out) != nil || out.Applied || len(out.Files) == 0 || out.Diff == nil {
		return
	}
	expect := map[string]string{}
	for _, f := range out.Files {
		if f.File == "" || f.SHA256 == "" {
			return // not a preview this server can apply
		}
		expect[f.File] = f.SHA256
	}
	input, err := decodeArguments(req.Params.Arguments)
	if err != nil {
		return
	}
	delete(input, "dry_run")
	id, err := srv.previews.put(&preview{tool: t.ID, input: input, expect: expect})
	if err != nil {
		srv.log.Warn("preview not stored", "tool", t.ID, "error", err)
		return
	}
	raw, err := json.Marshal(st)
	if err != nil {
		return
	}
	var fields map[string]any
	if json.Unmarshal(raw, &fields) != nil {
		return
	}
	fields[previewIDKey] = id
	res.StructuredContent = fields
	note := fmt.Sprintf("%s: %s (langhost_apply writes this preview)", previewIDKey, id)
	res.Content = append(res.Content, &mcp.TextContent{Text: note})
}

// applyInput is langhost_apply's input.
type applyInput struct {
	PreviewID string `json:"preview_id" jsonschema:"the preview_id of an edit preview"`
}

func applyTool() *mcp.Tool {
	destructive, idempotent, openWorld := true, false, false
	in, err := jsonschema.For[applyInput](nil)
	if err != nil {
		panic(fmt.Sprintf("apply input schema: %v", err)) // a fixed type
	}
	lean, err := leanSchema(in)
	if err != nil {
		panic(fmt.Sprintf("apply input schema: %v", err))
	}
	return &mcp.Tool{
		Name:        toolname.Name(ApplyToolID),
		Description: "Write an edit preview (rename, code_actions, format, ...) by its preview_id, exactly as previewed; refused if a file changed since.",
		InputSchema: lean,
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &destructive, IdempotentHint: idempotent, OpenWorldHint: &openWorld},
	}
}

// applyHandler runs langhost_apply: the stored preview's call again, with
// apply and expect, as confirmed when the tool may write (confirmed).
func (srv *Server) applyHandler() mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		id, err := previewID(req.Params.Arguments)
		if err != nil {
			return toolResult(ApplyToolID, nil, err), nil
		}
		pv, ok := srv.previews.get(id)
		if !ok {
			return toolResult(ApplyToolID, nil, &failure.Error{Code: failure.NotFound, Field: previewIDKey,
				Message: fmt.Sprintf("no preview %q: unknown, already applied or expired (previews last %s); preview the edit again", id, srv.previews.ttl)}), nil
		}
		g := srv.acquire()
		if g == nil {
			return toolResult(ApplyToolID, nil, failure.New(failure.Precondition, "the server is shutting down")), nil
		}
		defer g.calls.Done()
		t := g.byID[pv.tool]
		if t == nil {
			return toolResult(ApplyToolID, nil, failure.New(failure.NotFound, "%s, which made preview %s, is no longer served", pv.tool, id)), nil
		}
		if !confirmed(g.h, srv.opts, t) {
			return toolResult(ApplyToolID, nil, notPermitted(t.ID, previewIDKey)), nil
		}
		input := maps.Clone(pv.input)
		input["apply"] = true
		input["expect"] = pv.expect
		args, err := json.Marshal(input)
		if err != nil {
			return toolResult(ApplyToolID, nil, failure.Wrap(failure.Internal, err, "encode the apply call")), nil
		}
		call := &mcp.CallToolRequest{Session: req.Session, Params: &mcp.CallToolParamsRaw{Name: toolname.Name(t.ID), Arguments: args, Meta: req.Params.Meta}}
		res, err := g.handler(t, true)(ctx, call)
		if err == nil && res != nil && !res.IsError {
			srv.previews.remove(id)
		}
		srv.noteCall(ApplyToolID, res)
		return res, err
	}
}

func previewID(raw json.RawMessage) (string, error) {
	input, err := decodeArguments(raw)
	if err != nil {
		return "", err
	}
	for k := range input {
		if k != previewIDKey {
			return "", &failure.Error{Code: failure.InvalidInput, Field: k, Message: fmt.Sprintf("unknown input %q (langhost_apply takes preview_id)", k)}
		}
	}
	id, ok := input[previewIDKey].(string)
	if !ok || id == "" {
		return "", &failure.Error{Code: failure.InvalidInput, Field: previewIDKey, Message: "preview_id is required: the preview_id of an edit preview"}
	}
	if len(id) != 32 {
		return "", &failure.Error{Code: failure.InvalidInput, Field: previewIDKey, Message: fmt.Sprintf("%q is not a preview id", clipID(id))}
	}
	if _, err := hex.DecodeString(id); err != nil {
		return "", &failure.Error{Code: failure.InvalidInput, Field: previewIDKey, Message: fmt.Sprintf("%q is not a preview id", clipID(id))}
	}
	return id, nil
}

func clipID(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
