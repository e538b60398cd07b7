package filetools

import (
	"bytes"
	"context"
	"fmt"
	"regexp"

	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/internal/safefile"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Bounds of search.
const (
	defaultSearchResults = 100
	maxSearchResults     = 1000
	maxPatternLen        = 1000
	maxSearchFileSize    = 4 << 20   // larger files are skipped and counted
	maxSearchBytes       = 256 << 20 // bytes read per search
	maxMatchText         = 300       // bytes of a matching line returned
)

type searchInput struct {
	Pattern        string `json:"pattern" jsonschema:"regular expression, Go RE2 syntax (no backreferences; linear time)"`
	Path           string `json:"path,omitempty" jsonschema:"directory or file relative to the workspace root (default: the root)"`
	Glob           string `json:"glob,omitempty" jsonschema:"only files matching this glob (*.go matches names, src/**/*.ts paths)"`
	IgnoreCase     bool   `json:"ignore_case,omitempty"`
	MaxResults     int    `json:"max_results,omitempty" jsonschema:"at most this many matches (default 100, at most 1000)"`
	IncludeIgnored bool   `json:"include_ignored,omitempty" jsonschema:"also search files .gitignore ignores (never .git or .langhost)"`
}

type match struct {
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column int    `json:"column"` // 1-based byte column of the match
	Text   string `json:"text"`   // the line, cut around the match when long
}

type searchOutput struct {
	Matches       []match  `json:"matches"`
	FilesSearched int      `json:"files_searched"`
	Skipped       []string `json:"skipped,omitempty"` // files too large to search
	Truncated     bool     `json:"truncated"`
	IgnoreNote    string   `json:"ignore_note,omitempty"` // as list_files'
}

func (ts *tools) search(ctx context.Context, call registry.Call) (any, error) {
	var in searchInput
	if err := decode(call.Input, &in); err != nil {
		return nil, err
	}
	if in.Pattern == "" || len(in.Pattern) > maxPatternLen {
		return nil, &failure.Error{Code: failure.InvalidInput, Field: "pattern",
			Message: fmt.Sprintf("the pattern must hold 1 to %d bytes", maxPatternLen)}
	}
	expr := in.Pattern
	if in.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, &failure.Error{Code: failure.InvalidInput, Field: "pattern", Message: "not a valid RE2 regular expression", Err: err}
	}
	limit, err := maxResults(in.MaxResults, defaultSearchResults, maxSearchResults)
	if err != nil {
		return nil, err
	}
	globOK, err := globMatcher(in.Glob)
	if err != nil {
		return nil, err
	}
	out := &searchOutput{Matches: []match{}}
	var read int64
	w, err := ts.walk(ctx, "path", orDot(in.Path), in.IncludeIgnored, func(rel, abs string) bool {
		if !globOK(rel) {
			return true
		}
		if read >= maxSearchBytes {
			out.Truncated = true
			return false
		}
		data, err := safefile.ReadRegular(abs, maxSearchFileSize)
		if err != nil {
			if len(out.Skipped) < 100 {
				out.Skipped = append(out.Skipped, rel)
			}
			return true
		}
		read += int64(len(data))
		if binary(data) {
			return true
		}
		out.FilesSearched++
		return searchFile(re, rel, data, limit, out)
	})
	if err != nil {
		return nil, err
	}
	out.Truncated = out.Truncated || w.truncated
	out.IgnoreNote = w.ignoreNote()
	return out, nil
}

// searchFile adds the matches of data, the first per line, and reports
// whether the search goes on.
func searchFile(re *regexp.Regexp, rel string, data []byte, limit int, out *searchOutput) bool {
	for n, line := 1, data; len(line) > 0 || n == 1; n++ {
		i := bytes.IndexByte(line, '\n')
		cur := line
		if i >= 0 {
			cur, line = line[:i], line[i+1:]
		} else {
			line = nil
		}
		cur = bytes.TrimSuffix(cur, []byte("\r"))
		if loc := re.FindIndex(cur); loc != nil {
			if len(out.Matches) == limit {
				out.Truncated = true
				return false
			}
			out.Matches = append(out.Matches, match{Path: rel, Line: n, Column: loc[0] + 1, Text: excerpt(cur, loc[0])})
		}
		if line == nil {
			break
		}
	}
	return true
}

// excerpt cuts a long line to maxMatchText bytes around the match at at,
// on UTF-8 boundaries.
func excerpt(line []byte, at int) string {
	if len(line) <= maxMatchText {
		return string(line)
	}
	from := max(0, at-maxMatchText/3)
	to := min(len(line), from+maxMatchText)
	s := string(bytes.ToValidUTF8(line[from:to], nil))
	if from > 0 {
		s = "…" + s
	}
	if to < len(line) {
		s += "…"
	}
	return s
}
