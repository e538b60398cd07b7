package mcpserver

import (
	"fmt"
	"strconv"
	"strings"
)

// MCP tool names may use only [A-Za-z0-9_.-] and at most 128 characters
// (the SDK's validateToolName). Tool ids such as "go.build" already fit and
// are served as they are. The mapping is reversible:
//
//   - a byte outside [A-Za-z0-9_.-] becomes "_" and two upper-case hex
//     digits: "c++.build" -> "c_2B_2B.build", "c#.format" -> "c_23.format";
//   - an "_" that is followed by two upper-case hex digits is itself
//     escaped as "_5F" so that decoding is unambiguous: "go.x_AB" -> "go.x_5FAB".
//
// Every other id is its own name.

// ToolName returns the MCP tool name of a registry tool id.
func ToolName(id string) string {
	if !needsEscape(id) {
		return id
	}
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		c := id[i]
		if nameByte(c) && !(c == '_' && hexPairAt(id, i+1)) {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "_%02X", c)
	}
	return b.String()
}

// ToolID is the inverse of ToolName.
func ToolID(name string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		if name[i] == '_' && hexPairAt(name, i+1) {
			v, _ := strconv.ParseUint(name[i+1:i+3], 16, 8)
			b.WriteByte(byte(v))
			i += 2
			continue
		}
		if !nameByte(name[i]) {
			return "", fmt.Errorf("tool name %q: invalid character %q", name, name[i])
		}
		b.WriteByte(name[i])
	}
	return b.String(), nil
}

// validName reports whether name is acceptable to MCP clients.
func validName(name string) bool {
	if name == "" || len(name) > 128 {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !nameByte(name[i]) {
			return false
		}
	}
	return true
}

func needsEscape(id string) bool {
	for i := 0; i < len(id); i++ {
		if !nameByte(id[i]) || (id[i] == '_' && hexPairAt(id, i+1)) {
			return true
		}
	}
	return false
}

func nameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.'
}

func hexPairAt(s string, i int) bool {
	return i+2 <= len(s) && upperHex(s[i]) && upperHex(s[i+1])
}

func upperHex(c byte) bool { return '0' <= c && c <= '9' || 'A' <= c && c <= 'F' }
