package exectool

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/parsers"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Feedback packets of CLI tools. A tool with diagnostics parsers takes a
// packet input: raw (the default) is the result as the tool gave it, its
// own text included; compact gives the diagnostics as a packet in place
// of stdout, stderr, the diagnostics and the parsed outputs, which repeat
// them at many times the tokens.
// guided is compact here: without a language server there are no repairs
// to suggest. The packet input never reaches the command line.

// InputPacket is the input that shapes a tool's diagnostics.
const InputPacket = "packet"

// Keys a shaped result adds beside the result's own.
const (
	keyPacket     = "packet"
	keyRawOmitted = "rawOmitted"
)

// HasPacket reports whether t reports diagnostics, and so takes a packet
// input.
func HasPacket(t *spec.Tool) bool {
	for _, p := range t.OutputParsers {
		switch {
		case p.Type == parsers.KindDiagnostics, p.Type == parsers.KindGotest,
			p.Type == parsers.KindJSON && p.Fields != nil:
			return true
		}
	}
	return false
}

// withDefaultPacket sets the packet used when a call does not ask: the
// language spec's default.
func (x *Tool) withDefaultPacket(mode string) *Tool {
	x.packet = mode
	return x
}

// packetMode is the packet a call asks for, or the default; an unknown
// one, or one asked of a tool without diagnostics, is invalid input.
func (x *Tool) packetMode(input map[string]any) (string, error) {
	v, ok := input[InputPacket]
	if !ok || v == nil {
		if !HasPacket(x.spec) {
			return "", nil
		}
		return x.packet, nil
	}
	if !HasPacket(x.spec) {
		return "", &failure.Error{Code: failure.InvalidInput, Field: InputPacket,
			Message: fmt.Sprintf("%s reports no diagnostics, so it takes no packet", x.spec.ID)}
	}
	mode, ok := v.(string)
	if !ok || mode == "" || !diagnostic.ValidPacket(mode) {
		return "", &failure.Error{Code: failure.InvalidInput, Field: InputPacket,
			Message: fmt.Sprintf("unknown packet %s (want raw, compact or guided)", quoted(v))}
	}
	return mode, nil
}

func quoted(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

// shapePacket shapes res as mode asks. The tool's own text is left out
// only when nothing is lost: the tool succeeded, or its failure was
// parsed into diagnostics; a failure no parser understood keeps the text
// that explains it.
func shapePacket(res *registry.Result, mode string) error {
	if mode == "" || mode == diagnostic.PacketRaw {
		return nil
	}
	p := diagnostic.Compact(res.Diagnostics, nil)
	p.Mode = mode
	extra := map[string]any{keyPacket: p}
	if res.OK || len(res.Diagnostics) > 0 {
		// The packet says what the text, the diagnostics and the parsed
		// line outputs say, at a fraction of the tokens; counts, tests
		// and files stay.
		res.Stdout, res.Stderr = "", ""
		res.StdoutTruncated, res.StderrTruncated = false, false
		res.Diagnostics, res.Outputs = nil, nil
		extra[keyRawOmitted] = true
	}
	data, err := json.Marshal(extra)
	if err != nil {
		return fmt.Errorf("packet: %w", err)
	}
	res.Data = data
	return nil
}

// packetInputSchema is the packet input's schema.
func packetInputSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type: "string",
		Enum: []any{diagnostic.PacketRaw, diagnostic.PacketCompact, diagnostic.PacketGuided},
		Description: "shape of the diagnostics: raw (the tool's own text and the diagnostics), " +
			"compact (packet, one line of facts per diagnostic, in place of stdout, stderr, diagnostics and parsed lines) " +
			"or guided (the same as compact for a CLI tool: no language server to suggest repairs); " +
			"default raw unless the language spec sets packet",
	}
}

// addPacketOutput adds what a shaped result carries to a tool's output
// schema.
func addPacketOutput(s *jsonschema.Schema) {
	item := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"id":       {Type: "string", Description: "the diagnostic's code, or D<n> when it has none"},
		"severity": {Type: "string"},
		"location": {Type: "string", Description: "path:line:column"},
		"message":  {Type: "string"},
	}, Required: []string{"id", "severity", "location", "message"}}
	s.Properties[keyPacket] = &jsonschema.Schema{Type: "object", Description: "the diagnostics shaped as the packet input asked",
		Properties: map[string]*jsonschema.Schema{
			"mode":   {Type: "string"},
			"counts": countsSchema,
			"items":  {Type: "array", Items: item},
		}, Required: []string{"mode", "counts", "items"}}
	s.Properties[keyRawOmitted] = &jsonschema.Schema{Type: "boolean",
		Description: "stdout, stderr, diagnostics and parsed outputs were left out: the packet holds what they said"}
}
