package lsp

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"
)

// User-facing positions in langhost are 1-based lines and 1-based columns
// counted in Unicode code points (runes), the way most editors show them.
// LSP positions are 0-based lines and 0-based UTF-16 code unit offsets
// (the only encoding this client offers). A Mapper converts between the two
// for one document's content.

// Errors returned by Mapper for user positions outside the document.
var (
	ErrLineOutOfRange   = errors.New("line out of range")
	ErrColumnOutOfRange = errors.New("column out of range")
)

// Mapper converts positions within one document.
type Mapper struct {
	content    []byte
	lineStarts []int // byte offset of each line's first byte
}

// NewMapper indexes content's lines. Lines end at "\n"; a trailing "\r" is
// part of the line terminator.
func NewMapper(content []byte) *Mapper {
	starts := make([]int, 1, bytes.Count(content, []byte{'\n'})+1)
	for i := 0; ; {
		j := bytes.IndexByte(content[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		starts = append(starts, i)
	}
	return &Mapper{content: content, lineStarts: starts}
}

// Content returns the mapped content.
func (m *Mapper) Content() []byte { return m.content }

// LineCount is the number of lines (a final newline starts an empty line).
func (m *Mapper) LineCount() int { return len(m.lineStarts) }

// line returns the bytes of 0-based line i without its terminator.
func (m *Mapper) line(i int) []byte {
	start := m.lineStarts[i]
	end := len(m.content)
	if i+1 < len(m.lineStarts) {
		end = m.lineStarts[i+1] - 1
	}
	if end > start && m.content[end-1] == '\r' {
		end--
	}
	return m.content[start:end]
}

// LineText returns the text of 1-based line n without its terminator, or ""
// when n is out of range.
func (m *Mapper) LineText(n int) string {
	if n < 1 || n > len(m.lineStarts) {
		return ""
	}
	return string(m.line(n - 1))
}

// Position converts a 1-based line and 1-based code point column to an LSP
// position. The column may point just past the last character of the line.
func (m *Mapper) Position(line, column int) (Position, error) {
	if line < 1 || line > len(m.lineStarts) {
		return Position{}, fmt.Errorf("%w: line %d is not within 1..%d", ErrLineOutOfRange, line, len(m.lineStarts))
	}
	text := m.line(line - 1)
	runes := utf8.RuneCount(text)
	if column < 1 || column > runes+1 {
		return Position{}, fmt.Errorf("%w: column %d is not within 1..%d on line %d", ErrColumnOutOfRange, column, runes+1, line)
	}
	var units uint32
	for i, r := range []rune(string(text)) {
		if i == column-1 {
			break
		}
		units += utf16Len(r)
	}
	return Position{Line: uint32(line - 1), Character: units}, nil
}

// LineColumn converts an LSP position to a 1-based line and code point
// column, clamping positions beyond the end of a line or the document.
func (m *Mapper) LineColumn(p Position) (line, column int) {
	li := int(p.Line)
	if li >= len(m.lineStarts) {
		li = len(m.lineStarts) - 1
		text := m.line(li)
		return li + 1, utf8.RuneCount(text) + 1
	}
	var units uint32
	column = 1
	for _, r := range string(m.line(li)) {
		if units >= p.Character {
			break
		}
		units += utf16Len(r)
		column++
	}
	return li + 1, column
}

// PositionAt converts a byte offset of the content to an LSP position. An
// offset past the end maps to the end; one inside a line terminator maps
// to the end of its line.
func (m *Mapper) PositionAt(offset int) Position {
	offset = max(0, min(offset, len(m.content)))
	li := sort.Search(len(m.lineStarts), func(i int) bool { return m.lineStarts[i] > offset }) - 1
	text := m.line(li)
	text = text[:min(len(text), offset-m.lineStarts[li])]
	var units uint32
	for _, r := range string(text) {
		units += utf16Len(r)
	}
	return Position{Line: uint32(li), Character: units}
}

// Offset converts an LSP position to a byte offset in the content. A
// character past the end of a line maps to the line's end.
func (m *Mapper) Offset(p Position) (int, error) {
	li := int(p.Line)
	if li >= len(m.lineStarts) {
		if li == len(m.lineStarts) && p.Character == 0 {
			return len(m.content), nil
		}
		return 0, fmt.Errorf("%w: LSP line %d beyond %d lines", ErrLineOutOfRange, li, len(m.lineStarts))
	}
	start := m.lineStarts[li]
	text := m.line(li)
	var units uint32
	for i, r := range string(text) {
		if units >= p.Character {
			return start + i, nil
		}
		units += utf16Len(r)
	}
	return start + len(text), nil
}

// RangeText returns the content within r.
func (m *Mapper) RangeText(r Range) (string, error) {
	start, err := m.Offset(r.Start)
	if err != nil {
		return "", err
	}
	end, err := m.Offset(r.End)
	if err != nil {
		return "", err
	}
	if end < start {
		return "", fmt.Errorf("range end before start")
	}
	return string(m.content[start:end]), nil
}

func utf16Len(r rune) uint32 {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// ApplyEdits applies non-overlapping text edits to content. Edits with the
// same start are applied in the order given, as the LSP requires.
func ApplyEdits(content []byte, edits []TextEdit) ([]byte, error) {
	m := NewMapper(content)
	type span struct {
		start, end, order int
		text              string
	}
	spans := make([]span, 0, len(edits))
	for i, e := range edits {
		s, err := m.Offset(e.Range.Start)
		if err != nil {
			return nil, err
		}
		end, err := m.Offset(e.Range.End)
		if err != nil {
			return nil, err
		}
		if end < s {
			return nil, fmt.Errorf("edit %d: range end before start", i)
		}
		spans = append(spans, span{s, end, i, e.NewText})
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var b strings.Builder
	last := 0
	for _, s := range spans {
		if s.start < last {
			return nil, fmt.Errorf("overlapping text edits at byte %d", s.start)
		}
		b.Write(content[last:s.start])
		b.WriteString(s.text)
		last = s.end
	}
	b.Write(content[last:])
	return []byte(b.String()), nil
}

// URIFromPath returns the file URI of an absolute path.
func URIFromPath(path string) DocumentURI {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	return DocumentURI(u.String())
}

// Path returns the local file path of a file URI.
func (u DocumentURI) Path() (string, error) {
	parsed, err := url.Parse(string(u))
	if err != nil {
		return "", fmt.Errorf("parsing URI %q: %w", u, err)
	}
	if parsed.Scheme != "file" {
		return "", fmt.Errorf("URI %q is not a file URI", u)
	}
	return filepath.FromSlash(parsed.Path), nil
}
