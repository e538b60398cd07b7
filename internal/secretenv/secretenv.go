// Package secretenv keeps langhost's secrets out of its initial
// environment block. A child cannot read its parent's memory, but on
// Linux it can read /proc/<pid>/environ of every ancestor it may trace
// (every one of its user's, without Yama): a repository's test walking
// up its parents found the provider key and the MCP token in langhost's
// environment although its own environment was scrubbed. That file shows
// the block the kernel wrote at exec, not Go's copy of it, so Hide moves
// each secret into Go's copy and overwrites it in the block; os.Getenv
// and the SDKs that read keys keep working.
package secretenv

import "strings"

// entry is one NAME=VALUE entry of an environment block, with the offset
// of its value in the block.
type entry struct {
	name, value string
	valueAt     int
}

// parse splits a NUL-separated environment block into its entries.
func parse(block []byte) []entry {
	var out []entry
	for off := 0; off < len(block); {
		end := off
		for end < len(block) && block[end] != 0 {
			end++
		}
		if name, value, ok := strings.Cut(string(block[off:end]), "="); ok {
			out = append(out, entry{name: name, value: value, valueAt: off + len(name) + 1})
		}
		off = end + 1
	}
	return out
}
