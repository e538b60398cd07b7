package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// maxLogSize is the size past which the log file is moved to .1 (one old
// generation is kept) when a command first writes to it.
const maxLogSize = 8 << 20

// defaultLogPath is langhost.log in langhost's user cache directory,
// beside the daemons' logs.
func defaultLogPath() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("log file: %w", err)
	}
	return filepath.Join(cache, "langhost", "langhost.log"), nil
}

// lazyFile is a log file opened on the first write, so that commands that
// log nothing create nothing. If it cannot be opened, the logs go to
// fallback (stderr) with one line saying why, rather than being lost.
type lazyFile struct {
	path     string
	fallback io.Writer

	mu   sync.Mutex
	file *os.File
	w    io.Writer
}

func (l *lazyFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w == nil {
		f, err := openLog(l.path)
		if err != nil {
			fmt.Fprintf(l.fallback, "warning: logging to stderr: %v\n", err)
			l.w = l.fallback
		} else {
			l.file, l.w = f, f
		}
	}
	return l.w.Write(p)
}

// Close closes the file if it was opened.
func (l *lazyFile) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.file == nil {
		return nil
	}
	err := l.file.Close()
	l.file, l.w = nil, nil
	return err
}

// openLog opens path for appending, private to the user, rotating it
// once it has grown past maxLogSize. A symlink or other non-regular
// file at path is refused: the cache directory is the user's, but a log
// must never be written through a link to somewhere else.
func openLog(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	if st, err := os.Lstat(path); err == nil {
		if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%s is not a regular file", path)
		}
		if st.Size() > maxLogSize {
			_ = os.Rename(path, path+".1")
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
}
