//go:build unix

package main

import (
	"syscall"
	"testing"
)

// TestPluginStopsOnSIGTERM signals the semantic plugin itself: it stops
// gopls before exiting, and the next call starts a new plugin.
func TestPluginStopsOnSIGTERM(t *testing.T) {
	s, cs := startStdioServer(t, semanticFixture(t))
	plugin, gopls := warmGopls(t, s, cs)
	if err := syscall.Kill(plugin.pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitAllGone(t, "after the plugin got SIGTERM", []proc{plugin, gopls})
	if res, _ := callTool(t, cs, "go_file_symbols", map[string]any{"file": "main.go"}); res.IsError {
		t.Errorf("call after the plugin stopped: %s", resultText(res))
	}
}
