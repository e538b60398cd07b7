package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawStdio is a `langhost mcp` process driven with raw lines.
type rawStdio struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	pipe   io.ReadCloser
	stderr *lockedBuffer
}

func startRawStdio(t *testing.T, f mcpFixture) *rawStdio {
	t.Helper()
	p := &rawStdio{cmd: f.command(t), stderr: &lockedBuffer{}}
	p.cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if p.pipe, err = p.cmd.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	p.stdout = bufio.NewReader(p.pipe)
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.stdin.Close()
		p.cmd.Wait()
		if t.Failed() {
			t.Logf("stderr:\n%s", p.stderr)
		}
	})
	return p
}

func (p *rawStdio) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		t.Fatalf("write %.40q: %v\nstderr:\n%s", line, err, p.stderr)
	}
}

func (p *rawStdio) answer(t *testing.T) map[string]any {
	t.Helper()
	line, err := p.stdout.ReadBytes('\n')
	if err != nil {
		t.Fatalf("read answer: %v\nstderr:\n%s", err, p.stderr)
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("answer %q is not JSON: %v", line, err)
	}
	return m
}

// wantRPCError checks an error answer's code and that its id is null.
func wantRPCError(t *testing.T, m map[string]any, code float64) {
	t.Helper()
	e, _ := m["error"].(map[string]any)
	id, hasID := m["id"]
	if e == nil || e["code"] != code || !hasID || id != nil {
		t.Errorf("answer = %v, want error %v with id null", m, code)
	}
}

// alive reports whether the process has not exited (a zombie has).
func (p *rawStdio) alive() bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(p.cmd.Process.Pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(stat)
	return !strings.HasPrefix(strings.TrimSpace(s[strings.LastIndex(s, ")")+1:]), "Z")
}

// peakRSS is the process's peak resident set in bytes (VmHWM).
func (p *rawStdio) peakRSS(t *testing.T) int {
	status, err := os.ReadFile("/proc/" + strconv.Itoa(p.cmd.Process.Pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatalf("VmHWM %q: %v", v, err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/pid/status")
	return 0
}

// TestMCPStdioMalformedInput: garbage, JSON that is not JSON-RPC and a
// 100 MB line each get an error answer with id null, and the same server
// process then answers initialize and tools/list and keeps running.
func TestMCPStdioMalformedInput(t *testing.T) {
	p := startRawStdio(t, newMCPFixture(t))
	p.send(t, "GET / HTTP/1.1")
	wantRPCError(t, p.answer(t), -32700)
	for _, line := range []string{`[]`, `42`, `{"jsonrpc":"2.0"}`, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`} {
		p.send(t, line)
		wantRPCError(t, p.answer(t), -32600)
	}

	// 100 MB without a newline, then one: streamed in and discarded.
	before := p.peakRSS(t)
	go func() {
		chunk := bytes.Repeat([]byte(`{"a":"`), 1<<20/6)
		for written := 0; written < 100<<20; written += len(chunk) {
			if _, err := p.stdin.Write(chunk); err != nil {
				return
			}
		}
		p.stdin.Write([]byte("\n"))
	}()
	m := p.answer(t)
	wantRPCError(t, m, -32600)
	if msg, _ := m["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "longer than 16777216 bytes") {
		t.Errorf("message = %q", msg)
	}
	// The line buffer holds up to 16 MiB before a line is known to be too
	// long; holding the whole line, or growing a buffer by doubling, would
	// add far more.
	if grown := p.peakRSS(t) - before; grown >= 40<<20 {
		t.Errorf("peak RSS grew by %d MB during a 100 MB line", grown>>20)
	}

	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := p.answer(t); m["id"] != float64(1) || m["result"] == nil {
		t.Fatalf("initialize answer = %v", m)
	}
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if m := p.answer(t); m["id"] != float64(2) || !strings.Contains(p.dump(m), `"name":"mcptest_echo"`) {
		t.Fatalf("tools/list answer = %.300v", m)
	}
	p.send(t, "\x00\x01 still garbage")
	wantRPCError(t, p.answer(t), -32700)
	p.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"mcptest_echo","arguments":{"text":"alive"}}}`)
	if m := p.answer(t); m["id"] != float64(3) || !strings.Contains(p.dump(m), "alive") {
		t.Fatalf("tools/call answer = %.300v", m)
	}
	if !p.alive() {
		t.Fatal("server exited")
	}
	p.stdin.Close()
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("server exit after stdin closed: %v", err)
	}
}

func (p *rawStdio) dump(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestMCPStdioSDKClientAfterGarbage connects the SDK's client to a server
// that has already answered garbage, and uses it normally.
func TestMCPStdioSDKClientAfterGarbage(t *testing.T) {
	p := startRawStdio(t, newMCPFixture(t))
	p.send(t, "not json at all")
	wantRPCError(t, p.answer(t), -32700)
	p.send(t, `{"jsonrpc":"2.0","method":7}`)
	wantRPCError(t, p.answer(t), -32600)

	client := mcp.NewClient(&mcp.Implementation{Name: "langhost-test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.IOTransport{
		Reader: struct {
			io.Reader
			io.Closer
		}{p.stdout, p.pipe},
		Writer: p.stdin,
	}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, p.stderr)
	}
	defer cs.Close()
	if tools := listTools(t, cs); tools["mcptest_echo"] == nil {
		t.Errorf("tools after garbage: %v", tools)
	}
	if res, _ := callTool(t, cs, "mcptest_echo", map[string]any{"text": "still here"}); res.IsError || !strings.Contains(resultText(res), "still here") {
		t.Errorf("call after garbage: %s", resultText(res))
	}
}
