// Package lsptest is test-only support for language server clients: it
// builds the test peers under it (fakeroslyn, muteproxy) once per test
// binary.
package lsptest

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sync"
	"testing"
)

// build is one package's build, once per test binary: a build is slow
// next to the tests that use it, and the binary does not change while
// they run.
type build struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

var builds sync.Map // package path -> *build

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

// Build compiles the command pkg once per test binary and returns the path
// of a copy inside t.TempDir(), so each test owns the executable it runs.
// The test fails if the go tool cannot build it.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	v, _ := builds.LoadOrStore(pkg, new(build))
	b := v.(*build)
	name := path.Base(pkg)
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", name+"-build-")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, name)
		cmd := exec.Command("go", "build", "-o", b.path, pkg)
		if goCache != "" {
			cmd.Env = append(os.Environ(), "GOCACHE="+goCache)
		}
		b.out, b.err = cmd.CombinedOutput()
	})
	if b.err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, b.err, b.out)
	}
	dst := filepath.Join(t.TempDir(), name)
	if err := os.Link(b.path, dst); err != nil {
		data, err := os.ReadFile(b.path)
		if err != nil {
			t.Fatalf("copy %s: %v", name, err)
		}
		if err := os.WriteFile(dst, data, 0o755); err != nil {
			t.Fatalf("copy %s: %v", name, err)
		}
	}
	return dst
}
