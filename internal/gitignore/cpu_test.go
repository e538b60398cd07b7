package gitignore

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// issueIgnore is the root .gitignore of issue 24: 4,000 lines like
// "*a*a*a…*b" (about 492 KB), each distinct.
func issueIgnore() []byte {
	var b strings.Builder
	for i := range 4000 {
		b.WriteString(strings.Repeat("*a", 60))
		fmt.Fprintf(&b, "*b%d\n", i)
	}
	return []byte(b.String())
}

// benchPaths are 20 paths of a walk, some deep, some with long names of
// the letters the patterns look for.
func benchPaths() []string {
	paths := make([]string, 20)
	for i := range paths {
		paths[i] = fmt.Sprintf("src/pkg%d/%s/file%d.go", i, strings.Repeat("a", 10*i), i)
	}
	return paths
}

// BenchmarkMatchIssueIgnore matches the 20 paths of benchPaths (and their
// directories, as a walk does) against the issue's hostile .gitignore.
// Matching is linear in the path per pattern, so the cost is the
// patterns times the components: about 31 ms for the 20 paths on this
// 2-core machine (it took about 5 s when the issue was filed). Budget:
// 50 ms; the benchmark fails above it.
func BenchmarkMatchIssueIgnore(b *testing.B) {
	const budget = 50 * time.Millisecond
	var m Matcher
	m.Add("", issueIgnore())
	paths := benchPaths()
	b.ResetTimer()
	for b.Loop() {
		for _, p := range paths {
			for i := range p {
				if p[i] == '/' {
					m.Match(p[:i], true)
				}
			}
			m.Match(p, false)
		}
	}
	if per := b.Elapsed() / time.Duration(b.N); per > budget {
		b.Errorf("%v per 20 paths, over the budget of %v", per, budget)
	}
}

// TestMatchAgreesWithGit compares Matcher with real git (check-ignore,
// which also looks at each path's directories, as a walk does) on
// patterns of every form, hostile ones included.
func TestMatchAgreesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is required: ", err)
	}
	patterns := []string{
		"*.log", "a/*.go", "/build", "build/", "out/", "!x.log", "**/x.log", "a/**/z", "a/**", "/**", "**",
		"?.c", "[ab].c", "[!ab].c", "[^ab].c", "[0-9].txt", "[z-a].txt", "[ab", "foo[[:digit:]]", "foo[[:alpha:]]",
		"foo[[:bogus:]]", "foo[[:digit:]", "[]]", "a[]]b", "[!]]", "[a-]", `\#x`, `x\ `, `a\/z`, "a/x**y", "a**", "*a*a*a*b",
		strings.Repeat("*a", 40) + "b", "**/b/**", "q/**/r.txt", "q/*/e", "q/*/*/r.txt", "dir.d", "*.d/", "[[:space:]]*", "é*",
		"*[[:upper:]]*", "a/b", "b", "/a/b/c/z", "**/c/z", "*/b/", "x[", `x\`, "[-]", "[a-c-e]x",
	}
	files := []string{"x.log", "a/b/x.log", "a/x.go", "a/b/x.go", "build/out.o", "src/build/y", "abc", "a.c", "b.c", "7.txt",
		"z.txt", "[ab", "foo1", "fooa", "]", "a]b", "-", "#x", "x ", "a/z", "a/b/c/z", "a/xzzy", "aaab", "aaaaaaaaaaaaaaaaaaaab",
		"dir.d/file", "é.txt", "Upper", "q/w/e/r.txt", "q/r.txt", "dx", "bx", "x["}
	repo := t.TempDir()
	for _, f := range files {
		p := filepath.Join(repo, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "GIT_CEILING_DIRECTORIES="+filepath.Dir(repo), "HOME="+repo, "GIT_CONFIG_NOSYSTEM=1")
	initRepo := exec.Command("git", "init", "-q", ".")
	initRepo.Dir, initRepo.Env = repo, env
	if out, err := initRepo.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	for _, pat := range patterns {
		if err := os.WriteFile(filepath.Join(repo, ".gitignore"), []byte(pat+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("git", "-c", "core.ignorecase=false", "-c", "core.quotepath=false", "check-ignore", "--no-index", "--stdin", "-z")
		cmd.Dir = repo
		cmd.Env = env
		cmd.Stdin = strings.NewReader(strings.Join(files, "\x00") + "\x00")
		out, err := cmd.Output()
		var ee *exec.ExitError
		if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
			t.Fatalf("git check-ignore: %v\n%s", err, ee.Stderr)
		}
		byGit := map[string]bool{}
		for _, f := range strings.Split(string(out), "\x00") {
			byGit[f] = true
		}
		var m Matcher
		m.Add("", []byte(pat+"\n"))
		for _, f := range files {
			if got := walkIgnored(&m, f); got != byGit[f] {
				t.Errorf("pattern %q, path %q: ignored = %v, git says %v", pat, f, got, byGit[f])
			}
		}
	}
}

// walkIgnored is whether a walk skips f: a directory above it, or f.
func walkIgnored(m *Matcher, f string) bool {
	for i := range f {
		if f[i] == '/' && m.Match(f[:i], true) {
			return true
		}
	}
	return m.Match(f, false)
}
