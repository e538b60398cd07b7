// Package toolname maps registry tool ids ("go.find_references",
// "c++.build") to the names MCP clients accept, which must match
// ^[a-zA-Z0-9_-]{1,64}$ (OpenAI, Claude Desktop, Copilot), and back.
//
// The mapping of one id:
//
//   - "." becomes "_": "go.find_references" -> "go_find_references";
//   - any other byte outside [A-Za-z0-9_-] becomes "_" and two upper-case
//     hex digits: "c++.build" -> "c_2B_2B_build", "c#.format" -> "c_23_format";
//   - an "_" followed by two upper-case hex digits is itself escaped as
//     "_5F", so that an escape is never read where there was none;
//   - a name longer than MaxLen keeps its first bytes and ends in "-" and
//     a hash of the whole id, so that it stays unique and deterministic.
//
// Since "." and "_" both become "_", a name alone does not always say
// which id it came from ("go.a_b" and "go.a.b"): a Table of the ids being
// served is the inverse, and it refuses two ids with the same name.
package toolname

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
)

// MaxLen is the longest name every MCP client accepts.
const MaxLen = 64

// hashLen is the number of hex digits of the hash suffix of a shortened name.
const hashLen = 10

// Name returns the MCP name of tool id.
func Name(id string) string {
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c == '.':
			b.WriteByte('_')
		case c == '_' && hexPairAt(id, i+1):
			b.WriteString("_5F")
		case nameByte(c):
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "_%02X", c)
		}
	}
	name := b.String()
	if len(name) <= MaxLen && name != "" {
		return name
	}
	sum := sha256.Sum256([]byte(id))
	suffix := "-" + hex.EncodeToString(sum[:])[:hashLen]
	return name[:min(len(name), MaxLen-len(suffix))] + suffix
}

// Valid reports whether name is acceptable to every MCP client.
func Valid(name string) bool {
	if name == "" || len(name) > MaxLen {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !nameByte(name[i]) {
			return false
		}
	}
	return true
}

// Table is the two-way mapping of a set of tool ids.
type Table struct {
	ids   map[string]string // name -> id
	names map[string]string // id -> name
}

// NewTable maps ids to names. Two ids with the same name are an error
// naming both, since a client could not tell them apart.
func NewTable(ids []string) (*Table, error) {
	t := &Table{ids: make(map[string]string, len(ids)), names: make(map[string]string, len(ids))}
	sorted := append([]string(nil), ids...)
	sort.Strings(sorted)
	for _, id := range sorted {
		if _, dup := t.names[id]; dup {
			continue
		}
		name := Name(id)
		if other, taken := t.ids[name]; taken {
			return nil, fmt.Errorf("tools %q and %q have the same MCP name %q; rename one of them (spec field id)", other, id, name)
		}
		t.ids[name], t.names[id] = id, name
	}
	return t, nil
}

// ID returns the tool id served under name.
func (t *Table) ID(name string) (string, bool) {
	id, ok := t.ids[name]
	return id, ok
}

// Name returns the name of a tool id of the table.
func (t *Table) Name(id string) (string, bool) {
	name, ok := t.names[id]
	return name, ok
}

// Resolve returns the id among ids that s names: s itself when it is one
// of the ids, else the id whose MCP name is s. It is for callers that
// accept both spellings (the CLI's "go.vet" and "go_vet").
func Resolve(s string, ids []string) (string, bool) {
	for _, id := range ids {
		if id == s {
			return id, true
		}
	}
	for _, id := range ids {
		if Name(id) == s {
			return id, true
		}
	}
	return "", false
}

func nameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

func hexPairAt(s string, i int) bool {
	return i+2 <= len(s) && upperHex(s[i]) && upperHex(s[i+1])
}

func upperHex(c byte) bool { return '0' <= c && c <= '9' || 'A' <= c && c <= 'F' }
