package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"testing"
)

// exeMappings sums the resident memory of this process's mappings of its
// executable: the read-only ones with only the file's pages (what
// releaseTextPages may drop), and the others, which it must keep.
func exeMappings(t *testing.T) (releasable, kept int64) {
	t.Helper()
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	var mine, readOnly bool
	var rss int64
	sc := bufio.NewScanner(bytes.NewReader(smaps))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		switch {
		case len(f) >= 5 && !bytes.HasSuffix(f[0], []byte(":")):
			mine = len(f) >= 6 && string(f[5]) == exe
			readOnly = string(f[1]) == "r-xp" || string(f[1]) == "r--p"
		case mine && string(f[0]) == "Rss:":
			rss, _ = strconv.ParseInt(string(f[1]), 10, 64)
		case mine && string(f[0]) == "Anonymous:":
			if readOnly && string(f[1]) == "0" {
				releasable += rss
			} else {
				kept += rss
			}
		}
	}
	return releasable, kept
}

// TestReleaseTextPages: the read-only pages of the executable leave the
// process's resident memory and come back when used; its writable data (and
// any relocated read-only data) stays as it was.
func TestReleaseTextPages(t *testing.T) {
	before, keptBefore := exeMappings(t)
	if before == 0 {
		t.Fatal("no resident read-only mapping of the executable")
	}
	releaseTextPages()
	after, keptAfter := exeMappings(t)
	if after >= before {
		t.Errorf("resident read-only pages of the executable: %d KiB before, %d KiB after", before, after)
	}
	if keptAfter < keptBefore/2 {
		t.Errorf("writable or relocated mappings shrank from %d KiB to %d KiB", keptBefore, keptAfter)
	}
	// Code and constant data still work: they come back from the page cache.
	out, err := json.Marshal(map[string]any{"ok": true, "n": []int{1, 2}})
	if err != nil || string(out) != `{"n":[1,2],"ok":true}` {
		t.Fatalf("after releasing: %s, %v", out, err)
	}
	if back, _ := exeMappings(t); back == 0 {
		t.Errorf("no page came back after use")
	}
}
