package filetools

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/internal/gitignore"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

const (
	defaultListResults = 1000
	maxListResults     = 10000
)

type listInput struct {
	Path           string `json:"path,omitempty" jsonschema:"directory relative to the workspace root (default: the root)"`
	Glob           string `json:"glob,omitempty" jsonschema:"only files matching this glob: without a / it matches file names (*.go), with one paths (src/**/*.ts)"`
	MaxResults     int    `json:"max_results,omitempty" jsonschema:"at most this many files (default 1000, at most 10000)"`
	IncludeIgnored bool   `json:"include_ignored,omitempty" jsonschema:"also list files .gitignore ignores (never .git or .langhost)"`
}

type listOutput struct {
	Files     []string `json:"files"`
	Truncated bool     `json:"truncated"`
	// IgnoreNote says that .gitignore patterns were left out (their
	// bound): files git ignores may be listed.
	IgnoreNote string `json:"ignore_note,omitempty"`
}

func (ts *tools) list(ctx context.Context, call registry.Call) (any, error) {
	var in listInput
	if err := decode(call.Input, &in); err != nil {
		return nil, err
	}
	limit, err := maxResults(in.MaxResults, defaultListResults, maxListResults)
	if err != nil {
		return nil, err
	}
	match, err := globMatcher(in.Glob)
	if err != nil {
		return nil, err
	}
	out := &listOutput{Files: []string{}}
	w, err := ts.walk(ctx, "path", orDot(in.Path), in.IncludeIgnored, func(rel, _ string) bool {
		if !match(rel) {
			return true
		}
		if len(out.Files) == limit {
			out.Truncated = true
			return false
		}
		out.Files = append(out.Files, rel)
		return true
	})
	if err != nil {
		return nil, err
	}
	out.Truncated = out.Truncated || w.truncated
	out.IgnoreNote = w.ignoreNote()
	return out, nil
}

func orDot(p string) string {
	if p == "" {
		return "."
	}
	return p
}

func maxResults(n, def, limit int) (int, error) {
	switch {
	case n == 0:
		return def, nil
	case n < 0 || n > limit:
		return 0, &failure.Error{Code: failure.InvalidInput, Field: "max_results",
			Message: fmt.Sprintf("max_results %d is out of range 1..%d", n, limit)}
	}
	return n, nil
}

// globMatcher compiles a glob as .gitignore patterns are compiled: "*"
// within a name, "**" across directories. A glob without "/" matches the
// file name.
func globMatcher(glob string) (func(rel string) bool, error) {
	if glob == "" {
		return func(string) bool { return true }, nil
	}
	if len(glob) > 1000 {
		return nil, &failure.Error{Code: failure.InvalidInput, Field: "glob", Message: "glob longer than 1000 bytes"}
	}
	re, err := regexp.Compile("^" + gitignore.Translate(strings.TrimPrefix(glob, "/")) + "$")
	if err != nil {
		return nil, &failure.Error{Code: failure.InvalidInput, Field: "glob", Message: fmt.Sprintf("bad glob %q", glob), Err: err}
	}
	if !strings.Contains(glob, "/") {
		return func(rel string) bool { return re.MatchString(path.Base(rel)) }, nil
	}
	return re.MatchString, nil
}
