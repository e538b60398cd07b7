package main

import (
	"encoding/json"
	"fmt"

	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// packetInput puts --packet into input as the tool's packet input. A tool
// without one (it reports no diagnostics), an unknown mode or an input
// that asks for another packet is invalid input naming --packet.
func packetInput(t *registry.Tool, input map[string]any, mode string) error {
	if mode == "" {
		return nil
	}
	bad := func(format string, args ...any) error {
		return &failure.Error{Code: failure.InvalidInput, Field: "--packet", Message: fmt.Sprintf(format, args...)}
	}
	if !diagnostic.ValidPacket(mode) {
		return bad("unknown packet %q (want raw, compact or guided)", mode)
	}
	if _, ok := t.InputSchema.Properties["packet"]; !ok {
		return bad("%s takes no packet: it reports no diagnostics", t.ID)
	}
	if v, ok := input["packet"]; ok && v != mode {
		return bad("the input asks for packet %v", printable(fmt.Sprint(v)))
	}
	input["packet"] = mode
	return nil
}

// resultPacket is the feedback packet a result carries, or nil.
func resultPacket(data json.RawMessage) *diagnostic.Packet {
	if len(data) == 0 {
		return nil
	}
	var v struct {
		Packet *diagnostic.Packet `json:"packet"`
	}
	if json.Unmarshal(data, &v) != nil || v.Packet == nil || v.Packet.Items == nil {
		return nil
	}
	return v.Packet
}

// packet writes one line per item, location: severity: message [id]
// (in Symbol), and its suggestions indented below it as the call that
// applies each.
func (r renderer) packet(p *diagnostic.Packet) {
	for _, it := range p.Items {
		s := r.diagnostic(diagnostic.Diagnostic{Severity: it.Severity, Message: it.Message})
		if it.Location != "" {
			s = printable(it.Location) + ": " + s
		}
		if it.ID != "" {
			s += " [" + printable(it.ID) + "]"
		}
		if it.Symbol != "" {
			s += " (in " + printable(it.Symbol) + ")"
		}
		fmt.Fprintln(r.w, s)
		for _, sg := range it.Suggestions {
			line := "  fix: " + printable(sg.Title)
			if sg.Tool != "" {
				// The input as JSON, as --input takes it.
				in, _ := json.Marshal(sg.Input)
				line += " -> " + printable(sg.Tool) + " " + printable(string(in))
			}
			fmt.Fprintln(r.w, line)
		}
	}
}
