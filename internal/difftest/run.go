package difftest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/langhost/langhost/plugins/lsp"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Config is one run: a workspace, the language, the langhost to ask, and
// how much to ask.
type Config struct {
	Lang     Language
	WS       string
	Langhost Langhost
	// Paths are the ways of asking langhost: cli-daemon, cli-no-daemon, mcp.
	Paths []string
	// MaxFiles caps the files whose symbols are indexed (0: all).
	MaxFiles int
	// PerCategory caps the targets of each category.
	PerCategory int
	// ColdLimit caps the queries of each operation asked through
	// cli-no-daemon, each of which starts and loads a server (0: all).
	ColdLimit int
	// Tools, when set, are the only operations compared.
	Tools []string
	// Log receives progress; nil discards it.
	Log io.Writer
}

// Difference is one query whose answers differ.
type Difference struct {
	Tool, Path string
	Query      string
	Raw, Got   Answer
	Message    string // langhost's message when it failed
	Known      string // why it is a known difference, "" when it is not
}

func (d Difference) String() string {
	s := fmt.Sprintf("%s via %s, %s: raw %s, langhost %s", d.Tool, d.Path, d.Query, d.Raw, d.Got)
	if d.Message != "" {
		s += fmt.Sprintf(" (%q)", d.Message)
	}
	if d.Known != "" {
		s += " [known: " + d.Known + "]"
	}
	return s
}

// Tally counts the answers of one operation through one path.
type Tally struct {
	Tool, Requests, Path string
	Identical, Different int
	Known                int // of Different, allow-listed
}

// Report is the outcome of a run.
type Report struct {
	Lang        string
	WS          string
	Files       int
	Decls       int
	Targets     []Target
	Tallies     []Tally
	Differences []Difference
}

// Unexplained are the differences no known difference explains.
func (r *Report) Unexplained() []Difference {
	var out []Difference
	for _, d := range r.Differences {
		if d.Known == "" {
			out = append(out, d)
		}
	}
	return out
}

// Run indexes the workspace through the bare server, picks targets, and
// asks every operation through every path and the bare server.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	logf := func(format string, args ...any) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, format+"\n", args...)
		}
	}
	files, err := SourceFiles(cfg.WS, cfg.Lang, cfg.MaxFiles)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no %s source files under %s", cfg.Lang.ID, cfg.WS)
	}
	logf("%s: starting %s on %d files", cfg.Lang.ID, cfg.Lang.Argv[0], len(files))
	raw, err := StartRaw(ctx, cfg.Lang, cfg.WS)
	if err != nil {
		return nil, err
	}
	defer raw.Close()
	ix, err := IndexWorkspace(ctx, raw, files, max(cfg.PerCategory, 1))
	if err != nil {
		return nil, err
	}
	logf("%s: %d declarations, %d targets", cfg.Lang.ID, len(ix.Decls), len(ix.Targets))

	var paths []Path
	defer func() {
		for _, p := range paths {
			p.Close()
		}
	}()
	for _, name := range cfg.Paths {
		switch name {
		case "cli-daemon":
			paths = append(paths, cfg.Langhost.NewCLI(cfg.Lang.ID, cfg.WS, false))
		case "cli-no-daemon":
			paths = append(paths, cfg.Langhost.NewCLI(cfg.Lang.ID, cfg.WS, true))
		case "mcp":
			m, err := cfg.Langhost.NewMCP(ctx, cfg.Lang.ID, cfg.WS)
			if err != nil {
				return nil, err
			}
			paths = append(paths, m)
		default:
			return nil, fmt.Errorf("unknown path %q (want cli-daemon, cli-no-daemon or mcp)", name)
		}
	}

	rep := &Report{Lang: cfg.Lang.ID, WS: cfg.WS, Files: len(files), Decls: len(ix.Decls), Targets: ix.Targets}
	for _, op := range Ops() {
		if len(cfg.Tools) > 0 && !slices.Contains(cfg.Tools, op.Tool) {
			continue
		}
		queries := op.queries(ix, raw)
		logf("%s: %s, %d queries", cfg.Lang.ID, op.Tool, len(queries))
		tallies := make([]Tally, len(paths))
		for i, p := range paths {
			tallies[i] = Tally{Tool: op.Tool, Requests: op.Requests, Path: p.Name()}
		}
		for qi, q := range queries {
			want, err := op.raw(ctx, raw, ix, q)
			if code := serverFailure(err); code != "" {
				want, err = Answer{Failure: code}, nil
			}
			if err != nil {
				return nil, fmt.Errorf("raw %s, %s: %w", op.Tool, q, err)
			}
			for i, p := range paths {
				if p.Name() == "cli-no-daemon" && cfg.ColdLimit > 0 && qi >= cfg.ColdLimit {
					continue
				}
				res, err := p.Call(ctx, op.Tool, q.Input)
				if err != nil {
					return nil, err
				}
				got := Answer{Failure: res.Code}
				if res.Answered() {
					if got, err = op.langhost(res.Data); err != nil {
						return nil, fmt.Errorf("%s via %s, %s: reading %s: %w", op.Tool, p.Name(), q, res.Data, err)
					}
				}
				if want.Same(got) {
					tallies[i].Identical++
					continue
				}
				d := Difference{Tool: op.Tool, Path: p.Name(), Query: q.String(), Raw: want, Got: got, Message: res.Message}
				d.Known = known(cfg.Lang.ID, d)
				tallies[i].Different++
				if d.Known != "" {
					tallies[i].Known++
				}
				rep.Differences = append(rep.Differences, d)
			}
		}
		rep.Tallies = append(rep.Tallies, tallies...)
	}
	return rep, nil
}

// serverFailure is the failure class langhost answers with when the
// server answers a request with an error (gopls's "Add is a function,
// not a method" to textDocument/implementation): unsupported for a method
// it does not have, internal with the server's message for the rest. ""
// when err is not an error response.
func serverFailure(err error) string {
	var re *lsp.ResponseError
	switch {
	case !errors.As(err, &re):
		return ""
	case re.Code == lsp.CodeMethodNotFound:
		return string(failure.Unsupported)
	}
	return string(failure.Internal)
}

// IndexWorkspace waits until the bare server has loaded the workspace,
// then indexes files and picks at most perCategory targets of each
// category.
func IndexWorkspace(ctx context.Context, r *Raw, files []string, perCategory int) (*Index, error) {
	probe, err := firstDecl(ctx, r, files)
	if err != nil {
		return nil, err
	}
	if err := r.Settle(ctx, probe); err != nil {
		return nil, err
	}
	return BuildIndex(ctx, r, files, perCategory)
}

// firstDecl is the first declaration of the first file that has one: the
// probe that says the server has loaded the workspace.
func firstDecl(ctx context.Context, r *Raw, files []string) (Decl, error) {
	for _, f := range files[:min(len(files), 50)] {
		ix, err := BuildIndex(ctx, r, []string{f}, 0)
		if err != nil {
			return Decl{}, err
		}
		for _, d := range ix.Decls {
			if isType(d.Kind) || isFunc(d.Kind) {
				return d, nil
			}
		}
	}
	return Decl{}, fmt.Errorf("no declaration in the first %d files", min(len(files), 50))
}

// Write prints the report as Markdown: the targets by category, a table
// per operation and path, and every difference.
func (r *Report) Write(w io.Writer) {
	fmt.Fprintf(w, "## %s: %s\n\n%d files indexed, %d declarations, %d targets:", r.Lang, r.WS, r.Files, r.Decls, len(r.Targets))
	byWhy := map[string][]string{}
	var whys []string
	for _, t := range r.Targets {
		if byWhy[t.Why] == nil {
			whys = append(whys, t.Why)
		}
		byWhy[t.Why] = append(byWhy[t.Why], fmt.Sprintf("%s (%s)", t.Decl.Name, t.At))
	}
	for _, why := range whys {
		fmt.Fprintf(w, "\n- %s: %s", why, strings.Join(byWhy[why], ", "))
	}
	fmt.Fprintf(w, "\n\n| operation | raw requests | path | identical | different | of which known |\n|---|---|---|---|---|---|\n")
	for _, t := range r.Tallies {
		fmt.Fprintf(w, "| %s | %s | %s | %d | %d | %d |\n", t.Tool, t.Requests, t.Path, t.Identical, t.Different, t.Known)
	}
	if len(r.Differences) == 0 {
		fmt.Fprintf(w, "\nNo differences.\n")
		return
	}
	fmt.Fprintf(w, "\nDifferences:\n\n")
	for _, d := range r.Differences {
		fmt.Fprintf(w, "- %s\n", d)
	}
}
