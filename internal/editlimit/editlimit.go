// Package editlimit bounds edits given as exact-text replacements. Each
// replacement scans the text the ones before it left, so the work is the
// number of edits times the file's size: 20,000 edits on a 15 MB file
// took half a minute of CPU and more than a gigabyte. Every tool that
// takes such edits (edit_file, workspace.replace_in_file) refuses a call
// beyond these limits before making any edit.
package editlimit

import (
	"fmt"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

const (
	MaxEdits     = 1000      // edits in one call
	MaxFileBytes = 8 << 20   // size of a file edits apply to
	MaxWork      = 256 << 20 // edits × file bytes: a second or so
)

// Field is the input key the refusals name.
const Field = "edits"

// Count refuses more than MaxEdits edits. instead says what to do
// instead, such as "give the whole file as content".
func Count(n int, instead string) error {
	if n <= MaxEdits {
		return nil
	}
	return &failure.Error{Code: failure.InvalidInput, Field: Field,
		Message: fmt.Sprintf("%d edits; at most %d per call: split them over several calls, or %s", n, MaxEdits, instead)}
}

// TooLarge is the refusal of edits on rel, a file larger than
// MaxFileBytes.
func TooLarge(rel, instead string) error {
	return &failure.Error{Code: failure.InvalidInput, Field: Field,
		Message: fmt.Sprintf("%s is larger than %d bytes, the most edits apply to; %s", rel, MaxFileBytes, instead)}
}

// Work refuses n edits on the size bytes of rel when together they are
// more than MaxWork.
func Work(n, size int, rel, instead string) error {
	if int64(n)*int64(max(size, 1)) <= MaxWork {
		return nil
	}
	return &failure.Error{Code: failure.InvalidInput, Field: Field,
		Message: fmt.Sprintf("%d edits on the %d bytes of %s are too much work (at most %d edits × bytes): split them over several calls, or %s", n, size, rel, MaxWork, instead)}
}
