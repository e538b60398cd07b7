package semantic

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/langhost/langhost/internal/editlimit"
	"github.com/langhost/langhost/internal/safefile"
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
	if err := editlimit.Count(len(in.Edits), wholeFile); err != nil {
		return err
	}
	for i, e := range in.Edits {
		if e.OldText == "" {
			return fieldErr(failure.InvalidInput, fmt.Sprintf("edits[%d].old_text", i), "is empty; to write a whole file use content")
		}
	}
	_, err := checkPolicy(in.Policy)
	return err
}

// Edits are bounded by internal/editlimit, as workspace.replace_in_file's
// are; content has no such cost, so it is what the refusals suggest.
const (
	maxEdits         = editlimit.MaxEdits
	maxEditFileBytes = editlimit.MaxFileBytes
	maxEditWork      = editlimit.MaxWork
	wholeFile        = "give the whole file as content"
)

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
			limit := int64(0)
			if in.Content == nil {
				limit = maxEditFileBytes
			}
			old, _, err := readRegular(target, limit)
			var tooLarge *safefile.TooLargeError
			if errors.As(err, &tooLarge) {
				return nil, editlimit.TooLarge(rel, wholeFile)
			}
			if err != nil {
				return nil, failure.Wrap(failure.Precondition, err, "reading %s", rel)
			}
			if in.Content != nil {
				return []fileChange{{path: target, rel: rel, old: old, new: []byte(*in.Content), editCount: 1}}, nil
			}
			text, err := applyEdits(ctx, string(old), in.Edits, rel)
			if err != nil {
				return nil, err
			}
			return []fileChange{{path: target, rel: rel, old: old, new: []byte(text), editCount: len(in.Edits)}}, nil
		},
	})
}

// editFileTarget resolves the file of edit_file: the real path of an
// existing regular file, or the path of one to create, inside the
// workspace. The workspace refuses git metadata and .langhost at any
// depth, by the path given or the one it leads to.
func (c *call) editFileTarget(p string) (path string, exists bool, err error) {
	path, err = c.e.ws.ResolveWrite("file", p)
	if err == nil {
		return path, true, nil
	}
	if failure.CodeOf(err) != failure.NotFound {
		return "", false, err
	}
	if path, err = c.e.ws.ResolveCreate("file", p); err != nil {
		return "", false, err
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		return "", false, fieldErr(failure.Precondition, "file", "%q changed while it was resolved", p)
	}
	return path, false, nil
}

// applyEdits applies edits to text in order, stopping when ctx ends.
func applyEdits(ctx context.Context, text string, edits []textReplace, rel string) (string, error) {
	if err := editlimit.Work(len(edits), len(text), rel, wholeFile); err != nil {
		return "", err
	}
	for i, e := range edits {
		if err := ctx.Err(); err != nil {
			return "", failure.Wrap(failure.Canceled, err, "edit_file %s: canceled after %d of %d edits; nothing was written", rel, i, len(edits))
		}
		var err error
		if text, err = replaceOnce(text, e, i, rel); err != nil {
			return "", err
		}
	}
	return text, nil
}

// replaceOnce replaces the one occurrence of e.OldText in text. It looks
// no further than a second occurrence, unless it must list them.
func replaceOnce(text string, e textReplace, i int, rel string) (string, error) {
	key := fmt.Sprintf("edits[%d].old_text", i)
	j := strings.Index(text, e.OldText)
	if j >= 0 && !strings.Contains(text[j+len(e.OldText):], e.OldText) {
		return text[:j] + e.NewText + text[j+len(e.OldText):], nil
	}
	n := 0
	if j >= 0 {
		n = strings.Count(text, e.OldText)
	}
	switch {
	case n == 0:
		err := fieldErr(failure.AnchorNotResolved, key, "the text is not in %s (after the edits before it); nothing was written", rel)
		if hint := nearestLine(text, e.OldText); hint != "" {
			err.Details = map[string]any{"nearest_line": hint}
		}
		return "", err
	default: // n > 1
		// Lines counted as the search goes: from the start for each
		// occurrence would be quadratic in them.
		var lines []int
		line := 1
		for off := 0; len(lines) < maxAmbiguousLines; {
			j := strings.Index(text[off:], e.OldText)
			if j < 0 {
				break
			}
			line += strings.Count(text[off:off+j], "\n")
			lines = append(lines, line)
			line += strings.Count(e.OldText, "\n")
			off += j + len(e.OldText)
		}
		err := fieldErr(failure.Ambiguous, key, "the text occurs %d times in %s (lines %s); add surrounding lines to make it unique; nothing was written", n, rel, joinInts(lines))
		err.Details = map[string]any{"lines": lines}
		return "", err
	}
}

// maxAmbiguousLines caps the lines an ambiguous edit's error lists.
const maxAmbiguousLines = 20

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
