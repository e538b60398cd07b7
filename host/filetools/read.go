package filetools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/internal/safefile"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Bounds of read_file.
const (
	maxReadSize  = 16 << 20  // a larger file is refused
	maxReadLines = 2000      // lines per call; the result says where to go on
	maxReadBytes = 256 << 10 // bytes of content per call
	maxLineLen   = 2000      // longer lines are cut
)

type readInput struct {
	Path      string `json:"path" jsonschema:"file relative to the workspace root"`
	StartLine int    `json:"start_line,omitempty" jsonschema:"first line to read, 1-based (default 1)"`
	EndLine   int    `json:"end_line,omitempty" jsonschema:"last line to read (default: as many as fit, up to 2000 lines)"`
}

type readOutput struct {
	Path       string `json:"path"`
	Size       int    `json:"size"`
	Binary     bool   `json:"binary,omitempty"`
	TotalLines int    `json:"total_lines"`
	StartLine  int    `json:"start_line"`
	EndLine    int    `json:"end_line"`
	// Content holds the lines as "<number>\t<text>", as cat -n prints them.
	Content   string `json:"content"`
	Truncated bool   `json:"truncated"`
	// NextStartLine is where to go on when the range was cut.
	NextStartLine int `json:"next_start_line,omitempty"`
}

func (ts *tools) read(ctx context.Context, call registry.Call) (any, error) {
	var in readInput
	if err := decode(call.Input, &in); err != nil {
		return nil, err
	}
	if in.StartLine < 0 || in.EndLine < 0 || in.EndLine > 0 && in.EndLine < max(in.StartLine, 1) {
		return nil, &failure.Error{Code: failure.InvalidInput, Field: "end_line",
			Message: fmt.Sprintf("line range %d-%d is empty or negative", in.StartLine, in.EndLine)}
	}
	rel, data, err := ts.readFile("path", in.Path, maxReadSize)
	if err != nil {
		return nil, err
	}
	out := &readOutput{Path: rel, Size: len(data)}
	if binary(data) {
		out.Binary = true
		return out, nil
	}
	lines := splitLines(data)
	out.TotalLines = len(lines)
	start := max(in.StartLine, 1)
	if start > len(lines) && len(lines) > 0 {
		return nil, &failure.Error{Code: failure.InvalidInput, Field: "start_line",
			Message: fmt.Sprintf("start_line %d is past the end of %s (%d lines)", start, rel, len(lines))}
	}
	end := len(lines)
	if in.EndLine > 0 {
		end = min(in.EndLine, len(lines))
	}
	var b strings.Builder
	out.StartLine, out.EndLine = start, start-1
	for n := start; n <= end; n++ {
		line := lines[n-1]
		if len(line) > maxLineLen {
			line = line[:maxLineLen] + " …[line cut at 2000 bytes]"
		}
		entry := fmt.Sprintf("%6d\t%s\n", n, line)
		if n-start >= maxReadLines || b.Len()+len(entry) > maxReadBytes {
			out.Truncated, out.NextStartLine = true, n
			break
		}
		b.WriteString(entry)
		out.EndLine = n
	}
	out.Content = b.String()
	return out, nil
}

// readFile confines and reads one file of at most limit bytes.
func (ts *tools) readFile(key, p string, limit int64) (string, []byte, error) {
	rel, err := relPath(key, p)
	if err != nil {
		return "", nil, err
	}
	abs, err := ts.opts.Workspace.ResolveRead(key, rel)
	if err != nil {
		return "", nil, err
	}
	data, err := safefile.ReadRegular(abs, limit)
	if err != nil {
		var big *safefile.TooLargeError
		var notRegular *safefile.NotRegularError
		switch {
		case errors.As(err, &big):
			return "", nil, &failure.Error{Code: failure.Precondition, Field: key, Err: err,
				Message: fmt.Sprintf("%s is too large to read (limit %d bytes); use workspace.search to find what you need in it", rel, limit)}
		case errors.As(err, &notRegular):
			return "", nil, &failure.Error{Code: failure.Precondition, Field: key, Err: err, Message: fmt.Sprintf("cannot read %s", rel)}
		}
		return "", nil, &failure.Error{Code: failure.Precondition, Field: key, Err: err, Message: fmt.Sprintf("cannot read %s", rel)}
	}
	return rel, data, nil
}

// binary reports whether data is not text: a NUL byte in its first 8000
// bytes (git's test) or invalid UTF-8.
func binary(data []byte) bool {
	head := data[:min(len(data), 8000)]
	return bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(data)
}

// splitLines splits text into lines without their "\n" (and "\r\n").
func splitLines(data []byte) []string {
	s := string(data)
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}
