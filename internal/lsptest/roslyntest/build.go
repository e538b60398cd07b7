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
	"path/filepath"
	"runtime"
	"testing"

	"github.com/langhost/langhost/internal/lsptest"
)

// Shapes is the absolute path of the C# fixture workspace the fake's
// tests use (a solution of two projects); copy it before editing.
func Shapes() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata", "Shapes")
}

const pkg = "github.com/langhost/langhost/internal/lsptest/fakeroslyn"

// Build compiles fakeroslyn once per test binary and returns the path of a
// copy inside t.TempDir(), so each test owns the executable it runs. The
// test fails if the go tool cannot build it.
func Build(t testing.TB) string {
	t.Helper()
	return lsptest.Build(t, pkg)
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
