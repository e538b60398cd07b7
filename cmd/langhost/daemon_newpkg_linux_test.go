package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDaemonSeesNewPackage: a package directory created after the daemon
// started is in the next warm call's references, as in a cold one's.
func TestDaemonSeesNewPackage(t *testing.T) {
	f := newDaemonFixture(t)
	if refs := f.references(); strings.Contains(refs, "report/report.go") {
		t.Fatalf("before the package exists: %s", refs)
	}
	const src = "package report\n\nimport \"example.com/shapes/calc\"\n\n// Total uses TotalArea from a new package.\nfunc Total() float64 { return calc.TotalArea(nil) }\n"
	if err := os.MkdirAll(filepath.Join(f.ws, "report"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.ws, "report", "report.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	warm := f.references()
	if !strings.Contains(warm, "report/report.go") {
		t.Errorf("the warm call misses the new package: %s", warm)
	}
	if cold := f.references("--no-daemon"); cold != warm {
		t.Errorf("warm and cold answers differ:\nwarm %s\ncold %s", warm, cold)
	}
	if st := f.one(); st.Calls != 2 {
		t.Errorf("not one daemon for both warm calls: %+v", st)
	}
}
