// Package scripts_test tests the shell scripts of this directory.
package scripts_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// suiteTools is what install-tools.sh checks before it installs anything.
var suiteTools = []string{"go", "git", "gcc", "make", "python3", "node", "npm", "java", "javac",
	"cargo", "rustc", "rustfmt", "cargo-clippy", "dotnet", "clangd-14", "apt-get", "dpkg-deb"}

// TestInstallToolsNamesEveryMissingToolchainFirst runs install-tools.sh
// with a PATH that has this machine's toolchains except cargo and rustc:
// it must fail before it creates .tools or installs anything, with one
// list naming both and the Debian command for each.
func TestInstallToolsNamesEveryMissingToolchainFirst(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("bash is not installed")
	}
	bin := t.TempDir()
	for _, name := range append([]string{"dirname"}, suiteTools...) {
		if name == "cargo" || name == "rustc" {
			continue
		}
		if path, err := exec.LookPath(name); err == nil {
			if err := os.Symlink(path, filepath.Join(bin, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	root := t.TempDir()
	script, err := os.ReadFile("install-tools.sh")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "scripts", "install-tools.sh"), script, 0o755); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(bash, filepath.Join(root, "scripts", "install-tools.sh"))
	cmd.Env = []string{"PATH=" + bin, "HOME=" + t.TempDir()}
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("install-tools.sh succeeded without cargo:\n%s", out)
	}
	text := string(out)
	for _, want := range []string{
		"install-tools: the test suite needs these, which are not on PATH:",
		"  cargo: apt-get install cargo\n",
		"  rustc: apt-get install rustc\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if n := strings.Count(text, "not on PATH"); n != 1 {
		t.Errorf("want one list, got %d:\n%s", n, text)
	}
	if strings.Contains(text, "install-tools: golang.org") || strings.Contains(text, "install-tools: npm") {
		t.Errorf("it started installing before checking:\n%s", text)
	}
	if _, err := os.Stat(filepath.Join(root, ".tools")); !os.IsNotExist(err) {
		t.Errorf(".tools was created before the check failed (stat: %v)", err)
	}
}
