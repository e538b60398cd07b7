// Command muteproxy runs a real language server and passes its messages
// through, but for the notifications it is told to drop: a test peer for
// a server that never publishes diagnostics, which a loaded real server
// does only now and then (late, under load).
//
// Usage:
//
//	muteproxy -drop textDocument/publishDiagnostics -- gopls [args...]
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/langhost/langhost/plugins/lsp"
)

func main() {
	drop := flag.String("drop", "", "the method of the server's notifications to drop")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: muteproxy -drop METHOD -- SERVER [ARGS...]")
		os.Exit(2)
	}
	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Stdin, cmd.Stderr = os.Stdin, os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "muteproxy:", err)
		os.Exit(1)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "muteproxy:", err)
		os.Exit(1)
	}
	if err := relay(bufio.NewReader(out), os.Stdout, *drop); err != nil {
		fmt.Fprintln(os.Stderr, "muteproxy:", err)
	}
	if err := cmd.Wait(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			os.Exit(ee.ExitCode())
		}
		os.Exit(1)
	}
}

// relay copies the server's messages to w, but for notifications of drop.
func relay(r *bufio.Reader, w io.Writer, drop string) error {
	for {
		body, err := lsp.ReadMessage(r)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(body, &m) == nil && m.ID == nil && m.Method == drop {
			continue
		}
		if err := lsp.WriteMessage(w, body); err != nil {
			return err
		}
	}
}
