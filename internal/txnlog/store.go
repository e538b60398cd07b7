package txnlog

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/langhost/langhost/internal/atomicfile"
	"github.com/langhost/langhost/internal/privfile"
	"github.com/langhost/langhost/internal/safefile"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// LegacyDir is where langhost kept the records before they moved to the
// user's state directory, relative to the workspace root. Whatever is
// there came with the repository as far as langhost knows: it is never
// read, let alone undone (WorkspaceRecords counts it, to say so).
const LegacyDir = ".langhost/transactions"

// StateDir is the directory of the records of every workspace, one
// subdirectory each: $XDG_STATE_HOME/langhost/transactions, by default
// ~/.local/state/langhost/transactions (the user config directory's
// langhost/transactions on Windows). It is the user's, not the
// repository's, so the repository can neither plant a record nor change
// one.
func StateDir() (string, error) {
	if dir := os.Getenv("XDG_STATE_HOME"); dir != "" && filepath.IsAbs(dir) {
		return filepath.Join(dir, "langhost", "transactions"), nil
	}
	return defaultStateDir()
}

// defaultStateDir is StateDir without XDG_STATE_HOME: the directory a
// process whose environment was stripped to HOME uses. MCP clients start
// servers so (Codex passes a short list of variables), and the user's
// shell must still find what such a server recorded.
func defaultStateDir() (string, error) {
	if runtime.GOOS == "windows" {
		dir, err := os.UserConfigDir()
		if err != nil {
			return "", failure.Wrap(failure.Precondition, err, "no directory for transaction records (set XDG_STATE_HOME)")
		}
		return filepath.Join(dir, "langhost", "transactions"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil || !filepath.IsAbs(home) {
		return "", failure.New(failure.Precondition, "no directory for transaction records: set HOME or XDG_STATE_HOME")
	}
	return filepath.Join(home, ".local", "state", "langhost", "transactions"), nil
}

// logDir is the record directory of the workspace whose real root is
// root: named by the SHA-256 of that path, so that it is found again
// whatever spelling of the root a command was given.
func logDir(root string) (string, error) {
	base, err := StateDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, workspaceKey(root)), nil
}

func workspaceKey(root string) string {
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:16])
}

// otherLogDir is the record directory of root under defaultStateDir when
// StateDir is another one (XDG_STATE_HOME is set) and it exists: records
// a server with a stripped environment made, which are read, undone and
// marked there. New records go to logDir.
func otherLogDir(root, primary string) string {
	base, err := defaultStateDir()
	if err != nil {
		return ""
	}
	dir := filepath.Join(base, workspaceKey(root))
	if dir == primary {
		return ""
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return "" // missing, or a symlink: nothing read through it
	}
	return dir
}

// makeLogDir creates the record directory private to the user (0700, not
// a symlink, the user's own) and notes which workspace it belongs to, for
// a person looking at the state directory.
func makeLogDir(dir, root string) error {
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := privfile.Dir(d); err != nil {
			return failure.Wrap(failure.Precondition, err, "transaction records")
		}
	}
	note := filepath.Join(dir, "workspace")
	if _, err := os.Lstat(note); errors.Is(err, fs.ErrNotExist) {
		if err := atomicfile.WriteFile(note, []byte(root+"\n"), 0o600); err != nil {
			return failure.Wrap(failure.Precondition, err, "transaction records")
		}
	}
	return nil
}

// nextSeq returns the sequence number of the next record, which orders
// records; the caller holds the lock. The counter is kept in a file; when
// it is missing or damaged the records themselves say where it stands.
func (l *log) nextSeq() (uint64, error) {
	p := filepath.Join(l.dir, "seq")
	b, err := safefile.ReadRegular(p, 64)
	last, perr := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || perr != nil {
		recs, err := l.list()
		if err != nil {
			return 0, err
		}
		last = 0
		for _, r := range recs {
			last = max(last, r.Seq)
		}
	}
	if last == ^uint64(0) {
		return 0, failure.New(failure.Internal, "transaction records: sequence exhausted")
	}
	if err := atomicfile.WriteFile(p, []byte(strconv.FormatUint(last+1, 10)+"\n"), 0o600); err != nil {
		return 0, failure.Wrap(failure.Precondition, err, "recording the transaction")
	}
	return last + 1, nil
}

// WorkspaceRecords reports how many record files the workspace has in its
// own .langhost/transactions: records of an older langhost or planted by
// the repository, which langhost never undoes. A symlinked directory
// counts as none, as nothing in it is read.
func WorkspaceRecords(root string) int {
	dir := filepath.Join(root, filepath.FromSlash(LegacyDir))
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return 0
	}
	f, err := os.Open(dir)
	if err != nil {
		return 0
	}
	defer f.Close()
	names, _ := f.Readdirnames(maxRecords)
	n := 0
	for _, name := range names {
		if strings.HasSuffix(name, ".json") && !strings.HasSuffix(name, ".before.json") {
			n++
		}
	}
	return n
}

// WorkspaceRecordsNote is the notice the commands print when the
// workspace has records of its own, or "".
func WorkspaceRecordsNote(root string) string {
	n := WorkspaceRecords(root)
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%s holds %d transaction record(s), from an older langhost or shipped with the repository: they are ignored and never undone (this user's records are kept outside the workspace)",
		LegacyDir, n)
}
