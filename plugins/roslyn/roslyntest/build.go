// Package roslyntest builds the fake Roslyn language server
// (plugins/roslyn/fakeroslyn) for tests of Roslyn dialect clients.
package roslyntest

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

const pkg = "github.com/langhost/langhost/plugins/roslyn/fakeroslyn"

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
