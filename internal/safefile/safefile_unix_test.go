//go:build unix

package safefile

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
)

func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	small := write("small", "hello")
	exact := write("exact", "0123456789")
	big := write("big", "0123456789x")
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := func(name, target string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name, path string
		want       string
		wantErr    string // substring; "" for success
	}{
		{"small file", small, "hello", ""},
		{"exactly the limit", exact, "0123456789", ""},
		{"one byte over", big, "", "larger than 10 bytes"},
		{"named pipe", fifo, "", "not a regular file: it is a named pipe (FIFO)"},
		{"symlink to a named pipe", link("fifolink", fifo), "", "a named pipe (FIFO)"},
		{"character device", "/dev/zero", "", "not a regular file: it is a character device"},
		{"symlink to a device", link("zerolink", "/dev/zero"), "", "a character device"},
		{"directory", dir, "", "not a regular file: it is a directory"},
		{"symlink to a file", link("smalllink", small), "hello", ""},
		{"missing", filepath.Join(dir, "nope"), "", "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadRegular(tt.path, 10)
			if tt.wantErr == "" {
				if err != nil || string(got) != tt.want {
					t.Fatalf("ReadRegular = %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("ReadRegular = %q, %v; want an error containing %q", got, err, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.path) {
				t.Errorf("error %q does not name %s", err, tt.path)
			}
		})
	}
	var tl *TooLargeError
	if _, err := ReadRegular(big, 10); !errors.As(err, &tl) || tl.Max != 10 {
		t.Errorf("over the limit: %v is not a *TooLargeError of 10", err)
	}
	var nr *NotRegularError
	if _, err := ReadRegular(fifo, 10); !errors.As(err, &nr) || nr.Mode&fs.ModeNamedPipe == 0 {
		t.Errorf("named pipe: %v is not a *NotRegularError", err)
	}
}

func TestReadFS(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "ok"), []byte("fine"), 0o644)
	mem := fstest.MapFS{"ok": {Data: []byte("fine")}, "big": {Data: []byte("0123456789x")}}
	tests := []struct {
		name    string
		fsys    fs.FS
		file    string
		wantErr string
	}{
		{"map file", mem, "ok", ""},
		{"map file over the limit", mem, "big", "larger than 10 bytes"},
		{"dir file", os.DirFS(dir), "ok", ""},
		{"dir named pipe", os.DirFS(dir), "fifo", "a named pipe (FIFO)"},
		{"missing", mem, "nope", "not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadFS(tt.fsys, tt.file, 10)
			if tt.wantErr == "" {
				if err != nil || string(got) != "fine" {
					t.Fatalf("ReadFS = %q, %v", got, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("ReadFS = %q, %v; want an error containing %q", got, err, tt.wantErr)
			}
		})
	}
}

func TestOpenDir(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := OpenDir(fifo); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("OpenDir(fifo) = %v, want not a directory", err)
	}
}

func TestReadRegularStat(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, max := range []int64{10, math.MaxInt64} {
		data, fi, err := ReadRegularStat(p, max)
		if err != nil || string(data) != "0123456789" || fi.Size() != 10 || !fi.Mode().IsRegular() {
			t.Errorf("max %d: ReadRegularStat = %q, %v, %v", max, data, fi, err)
		}
	}
	if _, _, err := ReadRegularStat(p, 9); err == nil || !strings.Contains(err.Error(), "larger than 9 bytes") {
		t.Errorf("over the limit: %v", err)
	}
	if data, err := ReadAll(strings.NewReader("abc"), math.MaxInt64); err != nil || string(data) != "abc" {
		t.Errorf("ReadAll without a limit = %q, %v", data, err)
	}
}
