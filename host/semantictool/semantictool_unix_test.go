//go:build unix

package semantictool_test

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/langhost/langhost/plugins/builtin/builtintest"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

func TestGoThroughPlugin(t *testing.T) {
	builtintest.RequireTools(t, "gopls")
	h := newHost(t, "../../plugins/semantic/testdata/gomod")

	refs, err := findReferences(t, h, map[string]any{"symbol": "TotalArea"})
	if err != nil {
		t.Fatal(err)
	}
	want := []reference{
		{File: "calc/calc.go", Line: 28, Column: 9, ContainingMember: "C"},
		{File: "calc/calc.go", Line: 32, Column: 32, ContainingMember: "Report"},
	}
	if fmt.Sprint(refs) != fmt.Sprint(want) {
		t.Fatalf("references = %+v, want %+v", refs, want)
	}

	// The plugin process dies between calls: the next call starts a new one.
	plugin := pluginPIDs(t)
	if len(plugin) != 1 {
		t.Fatalf("want one plugin process, found %v", plugin)
	}
	if err := syscall.Kill(plugin[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitGone(t, plugin[0])
	refs, err = findReferences(t, h, map[string]any{"file": "calc/calc.go", "line": 11, "column": 6})
	if err != nil {
		t.Fatalf("call after the plugin was killed: %v", err)
	}
	if fmt.Sprint(refs) != fmt.Sprint(want) {
		t.Errorf("after restart: references = %+v", refs)
	}

	// Errors keep their class across the process boundary.
	_, err = findReferences(t, h, map[string]any{"symbol": "TotalAreaa"})
	var fe *failure.Error
	if failure.CodeOf(err) != failure.NotFound || !errors.As(err, &fe) || !strings.Contains(fmt.Sprint(fe.Details["candidates"]), "TotalArea") {
		t.Errorf("unknown symbol: err = %v", err)
	}
	_, err = findReferences(t, h, map[string]any{"file": "calc/calc.go", "line": 999, "column": 1})
	if failure.CodeOf(err) != failure.InvalidInput {
		t.Errorf("line past the end: err = %v", err)
	}

	// Closing the host leaves no plugin or language server behind.
	servers := childPIDs(t, pluginPIDs(t)[0])
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range append(pluginPIDs(t), servers...) {
		waitGone(t, pid)
	}
}

// pluginPIDs lists this process's children running `plugin serve semantic`.
func pluginPIDs(t testing.TB) []int {
	t.Helper()
	var pids []int
	for _, pid := range childPIDs(t, os.Getpid()) {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if strings.Contains(string(cmdline), "plugin\x00serve\x00semantic") {
			pids = append(pids, pid)
		}
	}
	return pids
}

// childPIDs lists the live (non-zombie) children of parent.
func childPIDs(t testing.TB, parent int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// Fields after the parenthesised command: state ppid ...
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) > 1 && fields[0] != "Z" && fields[1] == strconv.Itoa(parent) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func waitGone(t testing.TB, pid int) {
	t.Helper()
	for range 200 {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || strings.Contains(string(stat), ") Z ") {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Errorf("process %d still running", pid)
}
