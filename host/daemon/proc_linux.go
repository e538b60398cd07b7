package daemon

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// maxCommand bounds a process's command line in a status.
const maxCommand = 160

// processTree returns root and its descendants from /proc, with their
// resident memory, and the total.
func processTree(root int) ([]Process, int64) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return []Process{}, -1
	}
	all := map[int]Process{}
	children := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		p, ok := readProcess(pid)
		if !ok {
			continue
		}
		all[pid] = p
		children[p.PPID] = append(children[p.PPID], pid)
	}
	var tree []Process
	var total int64
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		p, ok := all[pid]
		if !ok {
			continue
		}
		tree = append(tree, p)
		total += p.RSSBytes
		queue = append(queue, children[pid]...)
	}
	return tree, total
}

// readProcess reads /proc/pid/stat and cmdline.
func readProcess(pid int) (Process, bool) {
	dir := "/proc/" + strconv.Itoa(pid)
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return Process{}, false
	}
	// pid (comm) state ppid ... with comm possibly holding spaces and ')'.
	open, end := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
	if open < 0 || end < open {
		return Process{}, false
	}
	fields := strings.Fields(string(stat[end+1:]))
	if len(fields) < 22 {
		return Process{}, false
	}
	p := Process{PID: pid, Command: string(stat[open+1 : end])}
	p.PPID, _ = strconv.Atoi(fields[1])
	if pages, err := strconv.ParseInt(fields[21], 10, 64); err == nil {
		p.RSSBytes = pages * int64(os.Getpagesize())
	}
	if cmdline, err := os.ReadFile(dir + "/cmdline"); err == nil && len(cmdline) > 0 {
		p.Command = strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	p.Name = processName(p.Command)
	if len(p.Command) > maxCommand {
		p.Command = p.Command[:maxCommand] + "..."
	}
	return p, true
}
