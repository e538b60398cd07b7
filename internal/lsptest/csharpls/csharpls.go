// Package csharpls is test support for tests that run real csharp-ls, the
// Roslyn-based C# language server scripts/install-tools.sh installs
// pinned into .tools/bin, and the C# fixture solution they share.
package csharpls

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Require fails the test where the .NET SDK is on PATH and csharp-ls is
// not, and skips it, naming what is missing, where there is no SDK for
// csharp-ls to run on. C# semantics are never silently untested on a
// machine that could test them.
func Require(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("dotnet"); err != nil {
		t.Skip("dotnet (the .NET SDK) is not on PATH: C# semantics need it to run csharp-ls")
	}
	if _, err := exec.LookPath("csharp-ls"); err != nil {
		t.Fatal("csharp-ls is not on PATH although dotnet is; install the pinned tools with scripts/install-tools.sh and put .tools/bin on PATH (scripts/test.sh does)")
	}
}

// Zoo is the absolute path of plugins/semantic/testdata/zoo: a solution of
// a class library (an interface, an abstract class, overrides, overloads)
// and an application referencing it, which restores and builds offline
// from the SDK alone. Copy it before editing.
func Zoo() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "plugins", "semantic", "testdata", "zoo")
}
