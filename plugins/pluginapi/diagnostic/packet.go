package diagnostic

import (
	"fmt"
	"strconv"
)

// Packet modes: how a diagnostics result is shaped for its reader.
const (
	// PacketRaw is the tool's own text (CLI tools) or the full
	// diagnostics (servers).
	PacketRaw = "raw"
	// PacketCompact is one short line of facts per diagnostic.
	PacketCompact = "compact"
	// PacketGuided is compact plus ranked repair suggestions.
	PacketGuided = "guided"
)

// ValidPacket reports whether mode is a packet mode ("" means the default).
func ValidPacket(mode string) bool {
	switch mode {
	case "", PacketRaw, PacketCompact, PacketGuided:
		return true
	}
	return false
}

// Item is one diagnostic of a compact or guided packet.
type Item struct {
	ID       string `json:"id" jsonschema:"the diagnostic's code, or D<n> when it has none"`
	Severity string `json:"severity"`
	Location string `json:"location" jsonschema:"path:line:column"`
	Message  string `json:"message"`
	// Symbol is the name path of the symbol containing the location
	// (Shape/Area, pkg.Type.Method) when known.
	Symbol      string       `json:"symbol,omitempty"`
	Suggestions []Suggestion `json:"suggestions,omitempty"`
}

// Suggestion is one repair a guided packet offers, best first: the
// server's code action and the tool call that would apply it.
type Suggestion struct {
	Title string         `json:"title"`
	Kind  string         `json:"kind,omitempty"`
	Tool  string         `json:"tool,omitempty"`
	Input map[string]any `json:"input,omitempty"`
}

// Packet is a compact or guided diagnostics result.
type Packet struct {
	Mode   string `json:"mode"`
	Counts Counts `json:"counts"`
	Items  []Item `json:"items"`
}

// Compact shapes ds as a compact packet; symbol, if set, names the
// symbol containing a diagnostic.
func Compact(ds []Diagnostic, symbol func(Diagnostic) string) Packet {
	ds = Normalize(ds)
	p := Packet{Mode: PacketCompact, Counts: Count(ds), Items: make([]Item, 0, len(ds))}
	for i, d := range ds {
		it := Item{ID: d.Code, Severity: d.Severity, Location: Location(d), Message: d.Message}
		if it.ID == "" {
			it.ID = "D" + strconv.Itoa(i+1)
		}
		if symbol != nil {
			it.Symbol = symbol(d)
		}
		p.Items = append(p.Items, it)
	}
	return p
}

// Location is d's place as path:line:column, leaving out what is unknown.
func Location(d Diagnostic) string {
	switch {
	case d.Line > 0 && d.Column > 0:
		return fmt.Sprintf("%s:%d:%d", d.Path, d.Line, d.Column)
	case d.Line > 0:
		return fmt.Sprintf("%s:%d", d.Path, d.Line)
	}
	return d.Path
}

// String is the line a person reads: path:line:col: severity: message [code].
func (d Diagnostic) String() string {
	s := d.Severity + ": " + d.Message
	if loc := Location(d); loc != "" {
		s = loc + ": " + s
	}
	if d.Code != "" {
		s += " [" + d.Code + "]"
	}
	return s
}
