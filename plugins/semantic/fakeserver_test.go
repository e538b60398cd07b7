package semantic

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/langhost/langhost/plugins/lsp"
)

// The test binary doubles as a scripted language server: run as
// "<test binary> fake-lsp <mode> [log file]" it speaks LSP on stdio.
// Modes:
//
//	exit    exits at once with status 3
//	hang    never answers initialize
//	roslyn  replays the Roslyn handshake: waits for solution/open or
//	        project/open, reports progress, then sends
//	        workspace/projectInitializationComplete; answers empty results
//	        before that; fails the first references request with -30099;
//	        never answers textDocument/implementation (to be killed mid-call)
//	hostile answers textDocument/rename with the workspace edit in the file
//	        named by $LANGHOST_FAKE_EDIT_FILE, read at each request
//	malformed  like roslyn, but answers the first workspace/symbol request
//	        made under a log file with a Content-Length that is not a
//	        number, and then lingers until killed
func runFakeServer(mode, logPath string) {
	if mode == "exit" {
		os.Exit(3)
	}
	var logMu sync.Mutex
	logf := func(format string, args ...any) {
		if logPath == "" {
			return
		}
		logMu.Lock()
		defer logMu.Unlock()
		f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, format+"\n", args...)
			f.Close()
		}
	}
	var wmu sync.Mutex
	send := func(v map[string]any) {
		v["jsonrpc"] = "2.0"
		body, _ := json.Marshal(v)
		wmu.Lock()
		defer wmu.Unlock()
		lsp.WriteMessage(os.Stdout, body)
	}
	r := bufio.NewReader(os.Stdin)
	var (
		mu       sync.Mutex
		loaded   bool
		root     string
		refCalls int
	)
	for {
		body, err := lsp.ReadMessage(r)
		if err != nil {
			os.Exit(0)
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		json.Unmarshal(body, &m)
		if m.Method == "" {
			continue // a response to one of our requests
		}
		mu.Lock()
		isLoaded := loaded
		mu.Unlock()
		logf("%s loaded=%v", m.Method, isLoaded)
		reply := func(result any) { send(map[string]any{"id": m.ID, "result": result}) }
		switch m.Method {
		case "initialize":
			if mode == "hang" {
				continue
			}
			var p struct {
				RootURI string `json:"rootUri"`
			}
			json.Unmarshal(m.Params, &p)
			root = strings.TrimPrefix(p.RootURI, "file://")
			reply(map[string]any{
				"capabilities": map[string]any{
					"workspaceSymbolProvider": true, "documentSymbolProvider": true,
					"referencesProvider": true, "implementationProvider": true,
					"diagnosticProvider": map[string]any{"interFileDependencies": true, "workspaceDiagnostics": false},
					"renameProvider":     mode == "hostile",
				},
				"serverInfo": map[string]any{"name": "fake-roslyn", "version": "0.0.1"},
			})
		case "solution/open", "project/open":
			logf("%s %s", m.Method, m.Params)
			go func() {
				send(map[string]any{"id": 1, "method": "window/workDoneProgress/create", "params": map[string]any{"token": "load"}})
				send(map[string]any{"method": "$/progress", "params": map[string]any{"token": "load", "value": map[string]any{"kind": "begin", "title": "Loading projects"}}})
				time.Sleep(300 * time.Millisecond)
				send(map[string]any{"method": "$/progress", "params": map[string]any{"token": "load", "value": map[string]any{"kind": "end"}}})
				mu.Lock()
				loaded = true
				mu.Unlock()
				send(map[string]any{"method": "workspace/projectInitializationComplete"})
			}()
		case "workspace/symbol":
			if mode == "malformed" && firstLife(logPath) {
				wmu.Lock()
				os.Stdout.WriteString("Content-Length: lots\r\n\r\n{}")
				// Linger, deaf to stdin's EOF, until killed.
				time.Sleep(time.Hour)
			}
			if !isLoaded {
				reply([]any{})
				continue
			}
			reply([]any{map[string]any{"name": "Circle", "kind": 5, "containerName": "Shapes",
				"location": map[string]any{"uri": "file://" + root + "/Circle.cs", "range": rng(0, 13, 0, 19)}}})
		case "textDocument/documentSymbol":
			reply([]any{map[string]any{"name": "Circle", "kind": 5, "range": rng(0, 0, 2, 1), "selectionRange": rng(0, 13, 0, 19)}})
		case "textDocument/references":
			mu.Lock()
			refCalls++
			n := refCalls
			mu.Unlock()
			if n == 1 {
				send(map[string]any{"id": m.ID, "error": map[string]any{"code": -30099, "message": "The operation was not completed"}})
				continue
			}
			reply([]any{map[string]any{"uri": "file://" + root + "/Circle.cs", "range": rng(1, 4, 1, 10)}})
		case "textDocument/diagnostic":
			reply(map[string]any{"kind": "full", "items": []any{map[string]any{
				"range": rng(1, 4, 1, 10), "severity": 1, "code": "CS0103", "source": "csharp", "message": "The name 'Circle' does not exist"}}})
		case "textDocument/rename":
			edit, err := os.ReadFile(os.Getenv("LANGHOST_FAKE_EDIT_FILE"))
			if err != nil {
				send(map[string]any{"id": m.ID, "error": map[string]any{"code": -32603, "message": err.Error()}})
				continue
			}
			reply(json.RawMessage(edit))
		case "textDocument/implementation":
			// Never answered: tests kill the server while this is pending.
		case "shutdown":
			reply(nil)
		case "exit":
			os.Exit(0)
		default:
			if len(m.ID) > 0 {
				reply(nil)
			}
		}
	}
}

func rng(l1, c1, l2, c2 int) map[string]any {
	return map[string]any{"start": map[string]int{"line": l1, "character": c1}, "end": map[string]int{"line": l2, "character": c2}}
}

// firstLife reports whether no earlier fake server used logPath, and marks
// it used.
func firstLife(logPath string) bool {
	f, err := os.OpenFile(logPath+".started", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return false
	}
	f.Close()
	return true
}
