package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// trimInterval is how often a long-lived process lets go of the pages of
// its executable it has not used since (see trimTextPages).
const trimInterval = time.Minute

// trimTextPages releases, a second after start (past start-up: specs,
// tool registration, a first tools/list), 5 seconds after and then every
// trimInterval until ctx ends, this process's mappings of the read-only
// parts of its own executable (code and constant data). The kernel maps
// them in 64 KB runs around each page touched, so a long-lived langhost
// (MCP host, daemon, plugin) held 45-50 MiB of a 115 MB binary it mostly
// ran once, at start-up. The pages stay in the page cache: what the
// process uses again comes back with a minor fault. Not at start: the
// start-up still to come faulted back ~450 pages, 30 ms of CPU on this VM.
func trimTextPages(ctx context.Context) {
	waits := []time.Duration{time.Second, 4 * time.Second}
	for {
		wait := trimInterval
		if len(waits) > 0 {
			wait, waits = waits[0], waits[1:]
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		releaseTextPages()
	}
}

// releaseTextPages drops from this process's page tables the read-only,
// private mappings of its executable whose pages are all the file's
// (madvise MADV_DONTNEED: the next access reads the page cache again). A
// mapping with anonymous pages is never touched: the dynamic loader's
// relocated, then read-only data (RELRO) of a cgo build is such a one,
// and dropping it would lose the relocations.
func releaseTextPages() {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return
	}
	var start, end uint64 // the executable's current read-only mapping, if any
	sc := bufio.NewScanner(bytes.NewReader(smaps))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		switch {
		case len(f) >= 5 && bytes.IndexByte(f[0], '-') > 0 && !bytes.HasSuffix(f[0], []byte(":")):
			// A mapping's header: 00400000-0238d000 r-xp 00000000 fd:01 123 /path
			start, end = 0, 0
			perm := string(f[1])
			if len(f) < 6 || string(f[5]) != exe || (perm != "r-xp" && perm != "r--p") {
				continue
			}
			lo, hi, _ := bytes.Cut(f[0], []byte("-"))
			s, err1 := strconv.ParseUint(string(lo), 16, 64)
			e, err2 := strconv.ParseUint(string(hi), 16, 64)
			if err1 == nil && err2 == nil && e > s {
				start, end = s, e
			}
		case start != 0 && len(f) >= 2 && string(f[0]) == "Anonymous:":
			if string(f[1]) == "0" {
				_, _, _ = unix.Syscall(unix.SYS_MADVISE, uintptr(start), uintptr(end-start), unix.MADV_DONTNEED)
			}
			start, end = 0, 0
		}
	}
}
