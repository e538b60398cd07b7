package daemon

import (
	"fmt"
	"os"
	"path/filepath"
)

// maxSocketPath is the longest socket path every unix accepts (macOS's
// sun_path has 104 bytes including the terminating NUL).
const maxSocketPath = 103

// Paths are the files of one daemon.
type Paths struct {
	Socket string // the daemon listens here
	Lock   string // held while a caller checks, starts or replaces the daemon
	Log    string // the daemon's stdout and stderr
}

// SocketDir is the directory of the sockets and lock files of this user's
// daemons: $XDG_RUNTIME_DIR/langhost, else langhost/daemons in the user
// cache directory.
func SocketDir() (string, error) {
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" && filepath.IsAbs(rt) {
		return filepath.Join(rt, "langhost"), nil
	}
	return logDir()
}

// logDir is where daemons write their logs: langhost/daemons in the user
// cache directory.
func logDir() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("daemon directory: %w", err)
	}
	return filepath.Join(cache, "langhost", "daemons"), nil
}

// PathsFor returns the files of the daemon with the given key, creating
// their directories private to the user (0700): the socket's directory is
// what keeps other users from connecting.
func PathsFor(key string) (Paths, error) {
	dir, err := SocketDir()
	if err != nil {
		return Paths{}, err
	}
	logs, err := logDir()
	if err != nil {
		return Paths{}, err
	}
	for _, d := range []string{dir, logs} {
		if err := privateDir(d); err != nil {
			return Paths{}, err
		}
	}
	p := Paths{
		Socket: filepath.Join(dir, key+".sock"),
		Lock:   filepath.Join(dir, key+".lock"),
		Log:    filepath.Join(logs, key+".log"),
	}
	if len(p.Socket) > maxSocketPath {
		return Paths{}, fmt.Errorf("daemon socket path %s is longer than %d bytes: set XDG_RUNTIME_DIR to a shorter directory", p.Socket, maxSocketPath)
	}
	return p, nil
}

// Supported reports whether daemons work on this platform (unix sockets,
// flock and detached sessions); elsewhere every call runs in the caller.
func Supported() bool { return supported }
