//go:build linux

package secretenv

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestHide runs the test binary again with a secret in its environment:
// after Hide, /proc/<pid>/environ of that process no longer holds the
// value (as read by another process, cat), and os.Getenv still does.
func TestHide(t *testing.T) {
	const key = "sk-secretenv-0123456789abcdef"
	if os.Getenv("SECRETENV_CHILD") == "1" {
		n, err := Hide(func(name, _ string) bool { return name == "TEST_API_KEY" })
		if err != nil || n != 1 {
			t.Fatalf("Hide = %d, %v", n, err)
		}
		if os.Getenv("TEST_API_KEY") != key {
			t.Fatalf("os.Getenv lost the key: %q", os.Getenv("TEST_API_KEY"))
		}
		if !strings.Contains(strings.Join(os.Environ(), "\n"), "TEST_API_KEY="+key) {
			t.Fatal("os.Environ lost the key")
		}
		out, err := exec.Command("cat", "/proc/"+strconv.Itoa(os.Getpid())+"/environ").Output()
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(out, []byte(key)) || !bytes.Contains(out, []byte("OTHER=kept")) {
			t.Fatalf("environ after Hide: %q", out)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHide$", "-test.v")
	cmd.Env = append(os.Environ(), "SECRETENV_CHILD=1", "TEST_API_KEY="+key, "OTHER=kept")
	if out, err := cmd.CombinedOutput(); err != nil || !bytes.Contains(out, []byte("PASS")) {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func TestParse(t *testing.T) {
	got := parse([]byte("A=1\x00B=x=y\x00junk\x00C=\x00"))
	want := []entry{{"A", "1", 2}, {"B", "x=y", 6}, {"C", "", 17}}
	if len(got) != len(want) {
		t.Fatalf("parse = %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}
