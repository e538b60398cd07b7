package txnlog

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// maxFiles bounds the files of one record.
const maxFiles = 100000

// parseRecord decodes the record file of id and checks what Undo relies
// on: the id it records, a sequence number, clean relative paths, each
// named once, and well-formed hashes. Anything else is "damaged".
func parseRecord(id string, b []byte) (*Record, error) {
	var rec Record
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, failure.Wrap(failure.Precondition, err, "transaction %s is damaged", id)
	}
	damaged := func(format string, args ...any) error {
		return failure.New(failure.Precondition, "transaction %s is damaged: %s", id, fmt.Sprintf(format, args...))
	}
	switch {
	case rec.ID != id:
		return nil, damaged("it records the id %q", rec.ID)
	case rec.Seq == 0:
		return nil, damaged("it has no sequence number")
	case len(rec.Files) > maxFiles:
		return nil, damaged("it names %d files", len(rec.Files))
	}
	for _, ref := range []string{rec.UndoneBy, rec.Undoes} {
		if ref != "" && checkID(ref) != nil {
			return nil, damaged("it refers to %q, which is not a transaction id", ref)
		}
	}
	seen := make(map[string]bool, len(rec.Files))
	for i, f := range rec.Files {
		key := fmt.Sprintf("files[%d]", i)
		if err := checkClean(key+".path", f.Path); err != nil {
			return nil, damaged("%s", err.Error())
		}
		if seen[f.Path] {
			return nil, damaged("%s names %q twice", key, f.Path)
		}
		seen[f.Path] = true
		if !validHash(f.Before) || !validHash(f.After) {
			return nil, damaged("%s has a hash that is not sha256:<64 hex digits>", key)
		}
		if f.Before == "" && f.After == "" {
			return nil, damaged("%s neither existed before nor after", key)
		}
	}
	if rec.Trace == nil {
		rec.Trace = []string{}
	}
	return &rec, nil
}

// validHash reports whether h is "" or the form Hash returns.
func validHash(h string) bool {
	if h == "" {
		return true
	}
	hex, ok := strings.CutPrefix(h, "sha256:")
	if !ok || len(hex) != 64 {
		return false
	}
	for _, c := range hex {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// checkClean refuses a record path that is not a clean, relative,
// "/"-separated path inside the workspace by its text.
func checkClean(key, p string) error {
	if p == "" || strings.IndexByte(p, 0) >= 0 || filepath.IsAbs(p) || strings.HasPrefix(p, "/") ||
		path(p) != p || strings.HasPrefix(p, "../") || p == ".." || p == "." {
		return &failure.Error{Code: failure.InvalidInput, Field: key, Message: fmt.Sprintf("%q is not a clean workspace-relative path", p)}
	}
	return nil
}

// path cleans a "/" path.
func path(p string) string { return filepath.ToSlash(filepath.Clean(filepath.FromSlash(p))) }
