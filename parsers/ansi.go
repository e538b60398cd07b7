package parsers

import "bytes"

// stripANSI appends line to dst[:0] without its ANSI escape sequences and
// returns the result. Tools colour their output when they think a human
// is watching (chalk-based tools do so whenever CI is set, TTY or not);
// parsers must see the same text either way.
//
// It removes CSI sequences (ESC '[' params final), OSC sequences (ESC ']'
// ... BEL or ESC '\') and two-byte escapes (ESC and one byte).
func stripANSI(dst, line []byte) []byte {
	dst = dst[:0]
	for {
		i := bytes.IndexByte(line, 0x1b)
		if i < 0 {
			return append(dst, line...)
		}
		dst = append(dst, line[:i]...)
		line = line[i+1:]
		if len(line) == 0 {
			return dst
		}
		switch line[0] {
		case '[':
			j := 1
			for j < len(line) && (line[j] < 0x40 || line[j] > 0x7e) {
				j++
			}
			line = line[min(j+1, len(line)):]
		case ']':
			j := 1
			for j < len(line) && line[j] != 0x07 && !(line[j] == 0x1b && j+1 < len(line) && line[j+1] == '\\') {
				j++
			}
			switch {
			case j >= len(line):
				line = nil
			case line[j] == 0x07:
				line = line[j+1:]
			default:
				line = line[j+2:]
			}
		default:
			line = line[1:]
		}
	}
}
