package runner

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

func TestRunExitCodeAndOutput(t *testing.T) {
	res, err := Run(context.Background(), Command{Path: "sh", Args: []string{"-c", "echo out; echo err >&2; exit 3"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 3 || res.Stdout != "out\n" || res.Stderr != "err\n" || res.Truncated() {
		t.Errorf("got %+v", res)
	}
}

func TestRunDirEnvAndNoShell(t *testing.T) {
	dir := t.TempDir()
	res, err := Run(context.Background(), Command{
		Path: "sh", Args: []string{"-c", `pwd; echo "$LH_TEST"; echo "$1"`, "sh", "; rm -rf / $(x)"},
		Dir: dir, Env: []string{"LH_TEST=yes"},
	})
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	want := real + "\nyes\n; rm -rf / $(x)\n" // the argument reached the program verbatim
	if res.Stdout != want {
		t.Errorf("stdout = %q, want %q", res.Stdout, want)
	}
}

func TestRunMissingExecutable(t *testing.T) {
	_, err := Run(context.Background(), Command{Path: "langhost-no-such-tool"})
	if failure.CodeOf(err) != failure.Precondition || !strings.Contains(err.Error(), "langhost-no-such-tool") {
		t.Errorf("err = %v, want a precondition failure naming the executable", err)
	}
}

// TestRunHugeOutput streams 1 GiB through the runner: memory stays bounded
// by MaxOutput, the observer sees every byte, and the head and tail survive.
func TestRunHugeOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("1 GiB of output")
	}
	var seen countingWriter
	res, err := Run(context.Background(), Command{
		Path:      "sh",
		Args:      []string{"-c", "echo FIRST; head -c 1073741824 /dev/zero | tr '\\0' x; echo; echo LAST"},
		MaxOutput: 64 << 10,
		Output:    func(Stream) io.Writer { return &seen },
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.StdoutTruncated || res.StdoutBytes < 1<<30 {
		t.Errorf("truncated=%v bytes=%d", res.StdoutTruncated, res.StdoutBytes)
	}
	if len(res.Stdout) > 70<<10 {
		t.Errorf("kept %d bytes, want about 64 KiB", len(res.Stdout))
	}
	if !strings.HasPrefix(res.Stdout, "FIRST\n") || !strings.HasSuffix(res.Stdout, "LAST\n") || !strings.Contains(res.Stdout, "bytes omitted") {
		t.Errorf("head/tail not kept: %q...%q", res.Stdout[:20], res.Stdout[len(res.Stdout)-20:])
	}
	if seen.n != res.StdoutBytes {
		t.Errorf("observer saw %d bytes, want %d", seen.n, res.StdoutBytes)
	}
}

func TestRunConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := Run(context.Background(), Command{Path: "echo", Args: []string{strconv.Itoa(i)}})
			if err != nil {
				errs <- err
				return
			}
			if res.Stdout != fmt.Sprintf("%d\n", i) {
				errs <- fmt.Errorf("run %d got %q", i, res.Stdout)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestCapture(t *testing.T) {
	tests := []struct {
		limit  int
		writes []string
		want   string
	}{
		{10, []string{"abc"}, "abc"},
		{10, []string{"0123456789"}, "0123456789"},
		{10, []string{"01234", "56789", "ABCDE"}, "01234\n... [5 bytes omitted] ...\nABCDE"},
		{10, []string{"0123456789ABCDEFGHIJ"}, "01234\n... [10 bytes omitted] ...\nFGHIJ"},
		{10, []string{"01234", "5", "6", "7", "8", "9", "A", "B"}, "01234\n... [2 bytes omitted] ...\n789AB"},
	}
	for _, tt := range tests {
		c := newCapture(tt.limit)
		for _, w := range tt.writes {
			c.Write([]byte(w))
		}
		if got := c.String(); got != tt.want {
			t.Errorf("writes %q: got %q, want %q", tt.writes, got, tt.want)
		}
	}
}

type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }
