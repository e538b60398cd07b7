// Package safefile reads files that may be hostile. A named pipe, a device,
// a directory or a file larger than the caller's limit is refused before
// it can block langhost or fill its memory, whatever a symlink points to.
// It is the one bounded reader of langhost: specs, configs, solutions and
// projects are all read through it.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"syscall"
)

// NotRegularError is the error for a file that is not a regular file.
type NotRegularError struct {
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string { return "not a regular file: it is " + e.Kind() }

// Kind says what the file is instead, e.g. "a named pipe (FIFO)".
func (e *NotRegularError) Kind() string {
	m := e.Mode
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return "not a regular file"
}

// TooLargeError is the error for a file larger than the limit.
type TooLargeError struct {
	Max int64
}

func (e *TooLargeError) Error() string { return fmt.Sprintf("larger than %d bytes", e.Max) }

// Open opens the regular file at path for reading, through symlinks.
// Opening never blocks: O_NONBLOCK makes a named pipe open at once
// instead of waiting for a writer (it changes nothing for regular files),
// and the mode checked is that of the opened file, so a file swapped for
// something else after an earlier Stat is refused too. The error for a
// file of another kind is a *fs.PathError holding a *NotRegularError.
func Open(path string) (*os.File, error) {
	return openMode(path, fs.FileMode.IsRegular, func(m fs.FileMode) error { return &NotRegularError{Mode: m} })
}

// OpenDir opens the directory at path for listing, through symlinks,
// without blocking when path is a named pipe.
func OpenDir(path string) (*os.File, error) {
	return openMode(path, fs.FileMode.IsDir, func(fs.FileMode) error { return errors.New("not a directory") })
}

func openMode(path string, ok func(fs.FileMode) bool, wrong func(fs.FileMode) error) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && !ok(st.Mode()) {
		err = &fs.PathError{Op: "open", Path: path, Err: wrong(st.Mode())}
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

// ReadRegular reads the regular file at path, which may hold at most max
// bytes. A file of another kind fails with a *NotRegularError, a larger
// one with a *TooLargeError (both inside a *fs.PathError); at most max+1
// bytes are read, even from a file that grows while it is read.
func ReadRegular(path string, max int64) ([]byte, error) {
	data, _, err := ReadRegularStat(path, max)
	return data, err
}

// ReadRegularStat is ReadRegular that also returns the FileInfo of the file
// read, for callers that notice changes by size and modification time.
func ReadRegularStat(path string, max int64) ([]byte, fs.FileInfo, error) {
	f, err := Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if st.Size() > max {
		return nil, nil, &fs.PathError{Op: "read", Path: path, Err: &TooLargeError{Max: max}}
	}
	// Sized for the file, as it is read whole (many files are read per
	// query), with os.ReadFile's margin so that reading to the end (or a
	// file that grew meanwhile) needs no second buffer.
	data := make([]byte, 0, st.Size()+512)
	r := io.LimitReader(f, limit(max))
	for {
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
	if int64(len(data)) > max {
		return nil, nil, &fs.PathError{Op: "read", Path: path, Err: &TooLargeError{Max: max}}
	}
	return data, st, nil
}

// limit is what is read to tell a file of max bytes from a larger one.
func limit(max int64) int64 {
	if max == math.MaxInt64 {
		return max
	}
	return max + 1
}

// ReadFS is ReadRegular for a file of fsys: its mode and size are checked
// with fs.Stat before it is opened, so fsys.Open should refuse to block as
// Open does (an embed.FS holds only regular files).
func ReadFS(fsys fs.FS, name string, max int64) ([]byte, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: &NotRegularError{Mode: st.Mode()}}
	}
	if st.Size() > max {
		return nil, &fs.PathError{Op: "read", Path: name, Err: &TooLargeError{Max: max}}
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := ReadAll(f, max)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return data, nil
}

// ReadAll reads r to its end, failing with a *TooLargeError as soon as it
// has more than max bytes.
func ReadAll(r io.Reader, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit(max)))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, &TooLargeError{Max: max}
	}
	return data, nil
}
