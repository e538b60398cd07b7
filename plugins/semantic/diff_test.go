package semantic

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The previews are real patches: git apply and patch -p1 turn the old file
// into the new one.
func TestUnifiedDiffApplies(t *testing.T) {
	for _, tool := range []string{"git", "patch"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed to check the diffs: %v", tool, err)
		}
	}
	cases := []struct{ name, a, b string }{
		{"change", "one\ntwo\nthree\n", "one\n2\nthree\n"},
		{"delete all", "one\ntwo\n", ""},
		{"add final newline", "one\ntwo", "one\ntwo\n"},
		{"remove final newline", "one\ntwo\n", "one\ntwo"},
		{"crlf", "one\r\ntwo\r\n", "one\r\nTWO\r\n"},
		{"far apart", strings.Repeat("same\n", 50) + "x\n" + strings.Repeat("same\n", 50) + "y\n", strings.Repeat("same\n", 50) + "X\n" + strings.Repeat("same\n", 50) + "Y\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, argv := range [][]string{{"git", "apply", "--whitespace=nowarn", "-"}, {"patch", "-p1", "-s", "--no-backup-if-mismatch"}} {
				dir := t.TempDir()
				file := filepath.Join(dir, "dir", "f.txt")
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, []byte(c.a), 0o644); err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command(argv[0], argv[1:]...)
				cmd.Dir = dir
				cmd.Stdin = strings.NewReader(UnifiedDiff("dir/f.txt", c.a, c.b))
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", argv[0], err, out)
				}
				if got, _ := os.ReadFile(file); string(got) != c.b {
					t.Errorf("%s made %q, want %q", argv[0], got, c.b)
				}
			}
		})
	}
}
