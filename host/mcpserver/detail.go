package mcpserver

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/internal/clip"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Clients hand the model a result's structuredContent, not the text
// summary, so over MCP a CLI tool's structured result is lean unless the
// call asks for more with detail:
//
//   - compact (the default) leaves out what the parsed result already
//     says: the command line, the tool's own text when parsers read it
//     and the call succeeded or its failure was parsed into diagnostics
//     or tests (a go test -json stream), parsed outputs other than plain
//     values, and end positions. A tool whose text is its answer, and a
//     failure nothing parsed explains, keep the end of the text.
//   - standard keeps everything but cuts the text to its end.
//   - full is the result as the tool gave it.
//
// The keys left out are listed under "omitted". Semantic tools take
// detail themselves (compact by default over MCP, see call.go).

const (
	detailKey      = "detail"
	detailCompact  = "compact"
	detailStandard = "standard"
	detailFull     = "full"
)

// textTail is how much of the end of stdout and stderr compact and
// standard keep.
const textTail = 8 << 10

// shapedByDetail reports whether the server shapes t's results by a detail
// input of its own: a CLI tool, which has none.
func shapedByDetail(t *registry.Tool) bool {
	if t.Kind != registry.KindCLI {
		return false
	}
	if t.InputSchema != nil {
		if _, ok := t.InputSchema.Properties[detailKey]; ok {
			return false
		}
	}
	return true
}

// withDetail returns the input schema served for t: in with a detail
// property when the server shapes t's results.
func withDetail(t *registry.Tool, in *jsonschema.Schema) *jsonschema.Schema {
	if !shapedByDetail(t) {
		return in
	}
	c := *in
	c.Properties = maps.Clone(in.Properties)
	if c.Properties == nil {
		c.Properties = map[string]*jsonschema.Schema{}
	}
	c.Properties[detailKey] = &jsonschema.Schema{Type: "string",
		Enum:        []any{detailCompact, detailStandard, detailFull},
		Default:     json.RawMessage(`"` + detailCompact + `"`),
		Description: "result detail: compact (the default: parsed diagnostics and tests; the tool's text only when nothing parsed it), standard (adds the command, parsed outputs and the end of the text) or full (the whole output)"}
	return &c
}

// takeDetail removes detail from the call's arguments, which the tool
// itself does not take, and returns it (compact when absent).
func takeDetail(req *mcp.CallToolRequest) (string, error) {
	input, err := decodeArguments(req.Params.Arguments)
	if err != nil {
		return "", err // the handler reports it
	}
	v, ok := input[detailKey]
	if !ok {
		return detailCompact, nil
	}
	d, _ := v.(string)
	switch d {
	case detailCompact, detailStandard, detailFull:
	default:
		return "", &failure.Error{Code: failure.InvalidInput, Field: detailKey,
			Message: fmt.Sprintf("detail must be compact, standard or full, not %s", clipID(fmt.Sprint(v)))}
	}
	delete(input, detailKey)
	raw, err := json.Marshal(input)
	if err != nil {
		return "", failure.Wrap(failure.Internal, err, "encode the arguments")
	}
	params := *req.Params
	params.Arguments = raw
	req.Params = &params
	return d, nil
}

// shape leaves out of res's structured result what detail does not ask
// for.
func shape(res *mcp.CallToolResult, id, detail string) {
	st, ok := res.StructuredContent.(structured)
	if !ok || st.Result == nil || detail == detailFull || len(st.Result.Data) > 0 {
		return
	}
	r := *st.Result
	var omitted []string
	cut := func(name string, s *string, truncated *bool, keep bool, max int) {
		switch {
		case *s == "":
		case !keep:
			*s, *truncated = "", false
			omitted = append(omitted, name)
		case len(*s) > max:
			*s, *truncated = clip.Tail(*s, max), true
		}
	}
	if detail == detailStandard {
		cut("stdout", &r.Stdout, &r.StdoutTruncated, true, textTail)
		cut("stderr", &r.Stderr, &r.StderrTruncated, true, textTail)
	} else {
		// The text goes when a parser said what it says: a tool whose
		// text is its answer (go env, echo) keeps it, as does a failure
		// nothing parsed explains.
		parsed := len(r.Diagnostics) > 0 || r.Tests != nil || r.Files != nil || len(r.Outputs) > 0
		explained := parsed && (r.OK || len(r.Diagnostics) > 0 || r.Tests != nil && len(r.Tests.Failures) > 0)
		cut("stdout", &r.Stdout, &r.StdoutTruncated, !explained, textTail)
		cut("stderr", &r.Stderr, &r.StderrTruncated, !explained, textTail)
		if len(r.Command) > 0 {
			r.Command = nil
			omitted = append(omitted, "command")
		}
		var outputs map[string]any
		for _, k := range slices.Sorted(maps.Keys(r.Outputs)) {
			switch r.Outputs[k].(type) {
			case string, bool, int, int64, float64, json.Number, nil:
				if outputs == nil {
					outputs = map[string]any{}
				}
				outputs[k] = r.Outputs[k]
			default:
				omitted = append(omitted, "outputs."+k)
			}
		}
		r.Outputs = outputs
		if len(r.Diagnostics) > 0 {
			r.Diagnostics = slices.Clone(r.Diagnostics)
			for i := range r.Diagnostics {
				r.Diagnostics[i].EndLine, r.Diagnostics[i].EndColumn = 0, 0
			}
		}
	}
	// The text says what the structured result does, at the same detail:
	// an output compact leaves out is not repeated there either.
	if len(res.Content) == 1 {
		res.Content = []mcp.Content{&mcp.TextContent{Text: summary(id, &r, st.Error)}}
	}
	if len(omitted) > 0 {
		r.Data, _ = json.Marshal(map[string]any{"omitted": omitted, "detail": detail})
	}
	st.Result = &r
	res.StructuredContent = st
}
