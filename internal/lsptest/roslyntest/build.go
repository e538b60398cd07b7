// Package roslyntest is test-only support for Roslyn dialect clients: it
// builds fakeroslyn (internal/lsptest/fakeroslyn), a scripted peer that
// speaks like the Roslyn language server or csharp-ls, and holds its C#
// fixture workspace in testdata/Shapes. The fake is for what a real server
// cannot be made to do (crash, send malformed frames, load slowly, answer
// with hostile edits); ordinary C# semantics are tested against real
// csharp-ls. The tests in this package pin down the fake's behaviour.
package roslyntest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// Shapes is the absolute path of the C# fixture workspace the fake's
// tests use (a solution of two projects); copy it before editing.
func Shapes() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata", "Shapes")
}

const pkg = "github.com/langhost/langhost/internal/lsptest/fakeroslyn"

// built caches the one build per test binary; a build is slow next to the
// tests that use it, and the binary does not change while they run.
var built struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

// goCache is the go build cache as it was when the test binary started:
// a TestMain that moves XDG_CACHE_HOME (to isolate langhost's own cache)
// would otherwise make the build start from an empty cache, minutes long.
var goCache = func() string {
	if c := os.Getenv("GOCACHE"); c != "" {
		return c
	}
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "go-build")
	}
	return ""
}()

// Build compiles fakeroslyn once per test binary and returns the path of a
// copy inside t.TempDir(), so each test owns the executable it runs. The
// test fails if the go tool cannot build it.
func Build(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "fakeroslyn-build-")
		if err != nil {
			built.err = err
			return
		}
		built.path = filepath.Join(dir, "fakeroslyn")
		cmd := exec.Command("go", "build", "-o", built.path, pkg)
		if goCache != "" {
			cmd.Env = append(os.Environ(), "GOCACHE="+goCache)
		}
		built.out, built.err = cmd.CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, built.err, built.out)
	}
	dst := filepath.Join(t.TempDir(), "fakeroslyn")
	if err := os.Link(built.path, dst); err != nil {
		data, err := os.ReadFile(built.path)
		if err != nil {
			t.Fatalf("copy fakeroslyn: %v", err)
		}
		if err := os.WriteFile(dst, data, 0o755); err != nil {
			t.Fatalf("copy fakeroslyn: %v", err)
		}
	}
	return dst
}

// Install puts the fake on a directory of its own under name (e.g.
// "roslyn-language-server", or "csharp-ls" to make it behave like
// csharp-ls) and returns the directory, for PATH.
func Install(t testing.TB, name string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Link(Build(t), filepath.Join(dir, name)); err != nil {
		t.Fatalf("install fakeroslyn as %s: %v", name, err)
	}
	return dir
}
