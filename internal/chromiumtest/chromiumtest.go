//go:build linux

// Package chromiumtest renders a local HTML file in headless Chromium
// (Debian's chromium package) for tests that must see a page as a browser
// does: a screenshot and the DOM after parsing, and a parsed form of that
// DOM to assert on.
package chromiumtest

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Binary finds Chromium, failing the test where it is not installed
// (scripts/install-test-packages.sh installs it).
func Binary(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("chromium is not installed: run scripts/install-test-packages.sh as root (scripts/test.sh does)")
	return ""
}

// Render loads file in headless Chromium with a window of w×h pixels and
// returns its screenshot (PNG) and its DOM as Chromium serializes it.
// Chromium runs with its own profile in a temporary directory and with
// every host name unresolvable, so a page that reaches for the network
// gets nothing.
func Render(t testing.TB, file string, w, h int) (png, dom []byte) {
	t.Helper()
	bin := Binary(t)
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	u := (&url.URL{Scheme: "file", Path: abs}).String()
	shot := filepath.Join(t.TempDir(), "page.png")
	common := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
		"--hide-scrollbars", "--host-resolver-rules=MAP * ~NOTFOUND", "--user-data-dir=" + t.TempDir(),
		fmt.Sprintf("--window-size=%d,%d", w, h)}
	run(t, bin, append(common, "--screenshot="+shot, u)...)
	png, err = os.ReadFile(shot)
	if err != nil {
		t.Fatalf("chromium wrote no screenshot: %v", err)
	}
	dom = run(t, bin, append(common, "--dump-dom", u)...)
	return png, dom
}

// run runs chromium and returns its stdout. The deadline only keeps a
// wedged browser from hanging the test binary (a loaded machine starts
// Chromium slowly); Chromium's own children hold its stdout, so the
// whole process group is killed, and Wait gives up on the pipe after.
func run(t testing.TB, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return out.Bytes()
}

// Node is an element of a parsed DOM.
type Node struct {
	Name     string // local name, lower case
	Attr     map[string]string
	Children []*Node
	// Text is the element's own text, its children's not included.
	Text string
}

// ParseDOM parses Chromium's serialization of a DOM (HTML with inline
// SVG) into a tree under a root node named "#document".
func ParseDOM(dom []byte) (*Node, error) {
	d := xml.NewDecoder(bytes.NewReader(dom))
	d.Strict = false
	d.AutoClose = xml.HTMLAutoClose
	d.Entity = xml.HTMLEntity
	root := &Node{Name: "#document"}
	stack := []*Node{root}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return root, nil
		}
		if err != nil {
			return nil, fmt.Errorf("parse DOM: %w", err)
		}
		top := stack[len(stack)-1]
		switch tok := tok.(type) {
		case xml.StartElement:
			n := &Node{Name: strings.ToLower(tok.Name.Local), Attr: map[string]string{}}
			for _, a := range tok.Attr {
				n.Attr[strings.ToLower(a.Name.Local)] = a.Value
			}
			top.Children = append(top.Children, n)
			stack = append(stack, n)
		case xml.EndElement:
			name := strings.ToLower(tok.Name.Local)
			// Pop to the matching element; an unmatched end is ignored.
			for i := len(stack) - 1; i > 0; i-- {
				if stack[i].Name == name {
					stack = stack[:i]
					break
				}
			}
		case xml.CharData:
			top.Text += string(tok)
		}
	}
}

// All returns n and its descendants named name ("" for every element),
// in document order.
func (n *Node) All(name string) []*Node {
	var out []*Node
	var walk func(*Node)
	walk = func(m *Node) {
		if name == "" || m.Name == name {
			out = append(out, m)
		}
		for _, c := range m.Children {
			walk(c)
		}
	}
	walk(n)
	return out
}

// ByID returns the element with the id, or nil.
func (n *Node) ByID(id string) *Node {
	for _, m := range n.All("") {
		if m.Attr["id"] == id {
			return m
		}
	}
	return nil
}

// TextContent is the text of n and its descendants, each element's own
// text separated by a space.
func (n *Node) TextContent() string {
	var parts []string
	for _, m := range n.All("") {
		if s := strings.TrimSpace(m.Text); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ")
}

// Texts returns the text content of every element named name below n.
func (n *Node) Texts(name string) []string {
	var out []string
	for _, m := range n.All(name) {
		out = append(out, strings.TrimSpace(m.TextContent()))
	}
	return out
}
