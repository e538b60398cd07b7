// Command difftest runs the differential correctness harness
// (internal/difftest) on a repository: it asks langhost through the CLI via
// the daemon, the CLI with --no-daemon and MCP, and the bare language
// server, the same questions about the repository's own symbols, and prints
// per operation and path how many answers were identical and different,
// with every difference.
//
// Usage, from the repository root with the pinned tools on PATH:
//
//	go run ./scripts/difftest -lang go -repo DIR [-max-files 400] [-per-category 3]
//		[-paths cli-daemon,cli-no-daemon,mcp] [-cold-limit 2] [-tools find_references,...] [-langhost EXE]
//
// It exits 1 when a difference is not a known one.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/langhost/langhost/internal/difftest"
)

func main() {
	log.SetFlags(0)
	lang := flag.String("lang", "", "language: go, csharp, python, typescript or c")
	repo := flag.String("repo", "", "the workspace: a Go module, a C# solution's directory, a Python or TypeScript project")
	maxFiles := flag.Int("max-files", 400, "index at most this many source files, spread over the sorted list (0: all)")
	per := flag.Int("per-category", 3, "targets per category")
	paths := flag.String("paths", "cli-daemon,cli-no-daemon,mcp", "the ways of asking langhost")
	coldLimit := flag.Int("cold-limit", 2, "queries per operation through cli-no-daemon, each of which loads the workspace (0: all)")
	tools := flag.String("tools", "", "compare only these operations (comma-separated tool names)")
	exe := flag.String("langhost", "", "the langhost executable (default: built from ./cmd/langhost)")
	flag.Parse()
	l, ok := difftest.Languages[*lang]
	if !ok || *repo == "" {
		flag.Usage()
		os.Exit(2)
	}
	ws, err := filepath.Abs(*repo)
	if err != nil {
		log.Fatal(err)
	}
	if *exe == "" {
		dir, err := os.MkdirTemp("", "difftest-*")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(dir)
		*exe = filepath.Join(dir, "langhost")
		if out, err := exec.Command("go", "build", "-o", *exe, "./cmd/langhost").CombinedOutput(); err != nil {
			log.Fatalf("go build ./cmd/langhost: %v\n%s", err, out)
		}
	}
	cfg := difftest.Config{
		Lang: l, WS: ws, Langhost: difftest.Langhost{Exe: *exe, Env: os.Environ()},
		Paths: strings.FieldsFunc(*paths, func(r rune) bool { return r == ',' }), MaxFiles: *maxFiles, PerCategory: *per, ColdLimit: *coldLimit, Log: os.Stderr,
	}
	if *tools != "" {
		cfg.Tools = strings.Split(*tools, ",")
	}
	rep, err := difftest.Run(context.Background(), cfg)
	if err != nil {
		log.Fatal(err)
	}
	rep.Write(os.Stdout)
	if n := len(rep.Unexplained()); n > 0 {
		fmt.Fprintf(os.Stderr, "%d differences are not known ones\n", n)
		os.Exit(1)
	}
}
