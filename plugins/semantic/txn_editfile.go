package semantic

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/langhost/langhost/plugins/lsp"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// ---- edit_file: plain file writes by agents, through a transaction

type editFileInput struct {
	File    string        `json:"file" jsonschema:"file path, relative to the workspace root or absolute inside it; a missing file is created (with content)"`
	Content *string       `json:"content,omitempty" jsonschema:"the whole new content of the file (instead of edits)"`
	Edits   []textReplace `json:"edits,omitempty" jsonschema:"exact-match replacements applied in order (instead of content); each old_text must occur exactly once"`
	Policy  string        `json:"policy,omitempty" jsonschema:"which new diagnostics reject the edit: new_errors (default), new_warnings or never"`
	DryRun  bool          `json:"dry_run,omitempty" jsonschema:"return the diff and the diagnostics delta without writing"`
}

type textReplace struct {
	OldText string `json:"old_text" jsonschema:"text to replace, exactly as in the file (whitespace included); must occur once"`
	NewText string `json:"new_text" jsonschema:"replacement text"`
}

func (in *editFileInput) validate() error {
	if strings.TrimSpace(in.File) == "" {
		return fieldErr(failure.InvalidInput, "file", "is required")
	}
	switch {
	case in.Content == nil && len(in.Edits) == 0:
		return fieldErr(failure.InvalidInput, "content", "give content (the whole file) or edits (replacements)")
	case in.Content != nil && len(in.Edits) > 0:
		return fieldErr(failure.InvalidInput, "edits", "give content or edits, not both")
	}
	for i, e := range in.Edits {
		if e.OldText == "" {
			return fieldErr(failure.InvalidInput, fmt.Sprintf("edits[%d].old_text", i), "is empty; to write a whole file use content")
		}
	}
	_, err := checkPolicy(in.Policy)
	return err
}

// protectedDirs are directories edit_file never writes into: a write to
// .git (hooks, config) runs code later, and .langhost holds langhost's own
// records and the workspace's specs.
var protectedDirs = []string{".git", ".langhost"}

func editFile(ctx context.Context, c *call, in *editFileInput) (*TxnResult, error) {
	target, exists, err := c.editFileTarget(in.File)
	if err != nil {
		return nil, err
	}
	if !exists && in.Content == nil {
		return nil, fieldErr(failure.NotFound, "file", "%q does not exist in the workspace; to create it, give content", in.File)
	}
	rel := c.e.relPath(lsp.URIFromPath(target))
	return c.transact(ctx, &txn{
		Operation: "edit_file",
		Policy:    in.Policy,
		DryRun:    in.DryRun,
		Trace:     []string{fmt.Sprintf("edit_file %s", rel)},
		Lock:      []string{target},
		Propose: func(ctx context.Context) ([]fileChange, error) {
			// Again under the lock: the file may have been created or
			// replaced since.
			again, exists, err := c.editFileTarget(in.File)
			if err != nil {
				return nil, err
			}
			if again != target {
				return nil, fieldErr(failure.Precondition, "file", "%s changed while the edit was prepared; nothing was written", rel)
			}
			if !exists {
				if in.Content == nil {
					return nil, fieldErr(failure.NotFound, "file", "%q does not exist in the workspace any more", in.File)
				}
				return []fileChange{{path: target, rel: rel, new: []byte(*in.Content), editCount: 1, create: true}}, nil
			}
			old, _, err := readRegular(target, 0)
			if err != nil {
				return nil, failure.Wrap(failure.Precondition, err, "reading %s", rel)
			}
			if in.Content != nil {
				return []fileChange{{path: target, rel: rel, old: old, new: []byte(*in.Content), editCount: 1}}, nil
			}
			text := string(old)
			for i, e := range in.Edits {
				if text, err = replaceOnce(text, e, i, rel); err != nil {
					return nil, err
				}
			}
			return []fileChange{{path: target, rel: rel, old: old, new: []byte(text), editCount: len(in.Edits)}}, nil
		},
	})
}

// editFileTarget resolves the file of edit_file: the real path of an
// existing regular file, or the path of one to create, inside the
// workspace and outside the protected directories.
func (c *call) editFileTarget(p string) (path string, exists bool, err error) {
	path, err = c.e.ws.Resolve("file", p)
	if err != nil {
		return "", false, err
	}
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		if real, err := c.e.ws.Resolve("file", p); err != nil || real != path {
			return "", false, fieldErr(failure.Precondition, "file", "%q changed while it was resolved", p)
		}
	} else {
		if path, err = c.e.ws.ResolveWrite("file", p); err != nil {
			return "", false, err
		}
		exists = true
	}
	rel, _ := filepath.Rel(c.e.root, path)
	first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	if slices.Contains(protectedDirs, first) {
		return "", false, fieldErr(failure.Precondition, "file", "%q is inside %s/, which edit_file does not write", p, first)
	}
	return path, exists, nil
}

// replaceOnce replaces the one occurrence of e.OldText in text.
func replaceOnce(text string, e textReplace, i int, rel string) (string, error) {
	key := fmt.Sprintf("edits[%d].old_text", i)
	n := strings.Count(text, e.OldText)
	switch {
	case n == 0:
		err := fieldErr(failure.AnchorNotResolved, key, "the text is not in %s (after the edits before it); nothing was written", rel)
		if hint := nearestLine(text, e.OldText); hint != "" {
			err.Details = map[string]any{"nearest_line": hint}
		}
		return "", err
	case n > 1:
		var lines []int
		for off := 0; ; {
			j := strings.Index(text[off:], e.OldText)
			if j < 0 {
				break
			}
			lines = append(lines, strings.Count(text[:off+j], "\n")+1)
			off += j + len(e.OldText)
		}
		err := fieldErr(failure.Ambiguous, key, "the text occurs %d times in %s (lines %s); add surrounding lines to make it unique; nothing was written", n, rel, joinInts(lines))
		err.Details = map[string]any{"lines": lines}
		return "", err
	}
	return strings.Replace(text, e.OldText, e.NewText, 1), nil
}

// nearestLine returns the line of text whose trimmed form equals the
// trimmed first line of want, as a hint when only whitespace differs.
func nearestLine(text, want string) string {
	first, _, _ := strings.Cut(want, "\n")
	first = strings.TrimSpace(first)
	if first == "" {
		return ""
	}
	for n, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == first {
			return fmt.Sprintf("%d: %s", n+1, line)
		}
	}
	return ""
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}
