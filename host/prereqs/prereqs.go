// Package prereqs documents which external executables each language's
// tools need, and checks whether this machine has them.
package prereqs

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/langhost/langhost/host/runner"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/internal/textdist"
	"github.com/langhost/langhost/internal/toolpath"
)

// Tool is one tool's requirement.
type Tool struct {
	ID              string `json:"id"`
	Command         string `json:"command"`
	CommandLine     string `json:"command_line"` // with <placeholders> for inputs
	Purpose         string `json:"purpose"`
	Fallback        string `json:"fallback,omitempty"` // fallback command line
	FallbackCommand string `json:"fallback_command,omitempty"`
	Install         string `json:"install,omitempty"`
	// InstallCommand is the command that installs Install (see
	// InstallCommand); InstallNote says why there is none.
	InstallCommand  string  `json:"install_command,omitempty"`
	InstallNote     string  `json:"install_note,omitempty"`
	FallbackInstall string  `json:"fallback_install,omitempty"`
	Status          *Status `json:"status,omitempty"` // set by Check
	// WorkspaceCode names the code the workspace controls that the tool
	// runs; empty when it runs none.
	WorkspaceCode string `json:"workspace_code,omitempty"`
	// More lists the alternatives after the fallback, in order: a
	// language may name several language servers.
	More []Alternative `json:"more,omitempty"`
	// Server is set on a language's language server row, whose
	// alternatives are its other servers in order of preference: the
	// first installed is used.
	Server bool `json:"server,omitempty"`
}

// Alternative is an executable used when the ones before it are missing.
type Alternative struct {
	Command     string `json:"command"`
	CommandLine string `json:"command_line"`
	Install     string `json:"install,omitempty"`
}

// Summary counts the tools Check found available (directly or through a
// fallback) out of all of them.
func Summary(langs []Language) (available, total int) {
	for _, l := range langs {
		for _, t := range l.Tools {
			total++
			if t.Status != nil && t.Status.Available {
				available++
			}
		}
	}
	return available, total
}

// Missing returns what to run (or do) to install the tools Check found
// missing, each line once, in the order of the tools: go's eight tools
// missing go ask for one download, not eight.
func Missing(langs []Language) []string {
	var out []string
	for _, l := range langs {
		for _, t := range l.Tools {
			if t.Status == nil || t.Status.Available {
				continue
			}
			line := t.InstallCommand
			switch {
			case line != "":
			case t.InstallNote != "":
				line = t.InstallNote
			default:
				line = "install " + t.Command + " (" + l.ID + "'s spec names no package)"
			}
			if !slices.Contains(out, line) {
				out = append(out, line)
			}
		}
	}
	return out
}

// fallbacks lists the alternatives of t in order: its fallback, then More.
func (t *Tool) fallbacks() []Alternative {
	if t.FallbackCommand == "" {
		return nil
	}
	return append([]Alternative{{Command: t.FallbackCommand, CommandLine: t.Fallback, Install: t.FallbackInstall}}, t.More...)
}

// Language groups the requirements of one language.
type Language struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Source string `json:"source"`
	Tools  []Tool `json:"tools"`
}

// Status is what Check found for one tool.
type Status struct {
	Available bool `json:"available"`
	// Command is the executable that answers: the tool's own, or the
	// fallback or other language server found instead.
	Command string `json:"command,omitempty"`
	Path    string `json:"path,omitempty"`
	Version string `json:"version,omitempty"`
	// UsesFallback is set when only the fallback executable is installed.
	UsesFallback bool   `json:"uses_fallback,omitempty"`
	Error        string `json:"error,omitempty"`
}

// Collect lists the requirements of the given languages (all when ids is
// empty), in language id order.
func Collect(set *spec.Set, ids []string) ([]Language, error) {
	var out []Language
	for _, id := range ids {
		if _, ok := set.Language(id); !ok {
			known := make([]string, len(set.Languages))
			for i, f := range set.Languages {
				known[i] = f.Language.ID
			}
			if s := textdist.Ranked(id, known, 3); len(s) > 0 {
				return nil, fmt.Errorf("unknown language %q (did you mean %s?)", id, strings.Join(s, ", "))
			}
			return nil, fmt.Errorf("unknown language %q", id)
		}
	}
	for _, f := range set.Languages {
		if len(ids) > 0 && !slices.Contains(ids, f.Language.ID) {
			continue
		}
		l := Language{ID: f.Language.ID, Name: f.Language.Name, Source: f.Source}
		for _, key := range f.ToolOrder {
			t := f.Tools[key]
			r := Tool{ID: t.ID, Command: t.Command, CommandLine: commandLine(t, t.Command, t.Args),
				Purpose: t.Description, Install: t.Install, WorkspaceCode: t.RunsWorkspaceCode()}
			if fb := t.Fallback; fb != nil {
				r.Fallback, r.FallbackCommand, r.FallbackInstall = commandLine(t, fb.Command, fb.Args), fb.Command, fb.Install
			}
			l.Tools = append(l.Tools, r)
		}
		if s := f.Semantic; s != nil && len(s.Candidates) > 0 {
			// The first server installed is used: the others are its
			// fallbacks.
			first := s.Candidates[0]
			r := Tool{ID: f.Language.ID + " (language server)", Command: first.Command, Server: true,
				CommandLine: serverLine(first),
				Purpose:     "semantic operations (references, implementations, rename, ...)", Install: first.Install,
				WorkspaceCode: serverWorkspaceCode(s)}
			for i, alt := range s.Candidates[1:] {
				if i == 0 {
					r.Fallback, r.FallbackCommand, r.FallbackInstall = serverLine(alt), alt.Command, alt.Install
					continue
				}
				r.More = append(r.More, Alternative{Command: alt.Command, CommandLine: serverLine(alt), Install: alt.Install})
			}
			l.Tools = append(l.Tools, r)
		}
		for i := range l.Tools {
			t := &l.Tools[i]
			t.InstallCommand, t.InstallNote = installFields(t.Command, t.Install)
			if !t.Server || t.InstallCommand != "" {
				continue
			}
			// A language server with no install command (Microsoft's
			// Roslyn server is not on nuget.org) offers the first
			// alternative that has one, say csharp-ls pinned.
			for _, alt := range t.fallbacks() {
				if command, _ := installFields(alt.Command, alt.Install); command != "" {
					t.InstallCommand, t.InstallNote = command, ""
					break
				}
			}
		}
		out = append(out, l)
	}
	return out, nil
}

// serverWorkspaceCode says what workspace code the language server of s
// runs in a trusted workspace, and that a safe mode runs none otherwise.
func serverWorkspaceCode(s *spec.Semantic) string {
	srv, code := s.ServerWorkspaceCode(true)
	switch {
	case srv == nil:
		return ""
	case srv.SafeMode != nil:
		return srv.Name + ": " + code + ", in a trusted workspace only (safe mode otherwise)"
	}
	return srv.Name + ": " + code
}

func serverLine(s *spec.Server) string { return quoteArgs(append([]string{s.Command}, s.Args...)) }

// commandLine renders a tool's argv with placeholders where inputs go.
func commandLine(t *spec.Tool, command string, args []string) string {
	inserts := map[int][]string{}
	var tail []string
	place := func(pos *int, name string) {
		if pos == nil {
			return
		}
		if *pos < 0 || *pos > len(args) {
			tail = append(tail, "["+name+"]")
			return
		}
		inserts[*pos] = append(inserts[*pos], "["+name+"]")
	}
	args = quoted(args)
	place(t.ProjectArg, "<project>")
	place(t.PathArg, "<path>")
	place(t.ScriptArg, "<script>")
	parts := []string{command}
	for i := 0; i <= len(args); i++ {
		parts = append(parts, inserts[i]...)
		if i < len(args) {
			parts = append(parts, args[i])
		}
	}
	if len(t.ConfigArg) == 1 {
		parts = append(parts, "["+t.ConfigArg[0]+" <configuration>]")
	}
	return strings.Join(append(parts, tail...), " ")
}

// Markdown writes the prerequisites document.
func Markdown(w io.Writer, langs []Language) error {
	var b strings.Builder
	b.WriteString("# Tool prerequisites\n\n")
	b.WriteString("Generated by `langhost prereqs` from the language specs; do not edit by hand.\n")
	b.WriteString("Each tool runs its command line with the bracketed inputs filled in; a fallback runs only when the primary executable is not installed.\n\n")

	b.WriteString("## Executables\n\n| Executable | Needed by | Install |\n|---|---|---|\n")
	for _, e := range executables(langs) {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", e.name, strings.Join(e.users, ", "), cellOrDash(e.install))
	}
	for _, l := range langs {
		fmt.Fprintf(&b, "\n## %s (`%s`)\n\n", l.Name, l.ID)
		checked := len(l.Tools) > 0 && l.Tools[0].Status != nil
		if checked {
			b.WriteString("| Tool | Command | Purpose | Runs workspace code | Fallback | Install | Status |\n|---|---|---|---|---|---|---|\n")
		} else {
			b.WriteString("| Tool | Command | Purpose | Runs workspace code | Fallback | Install |\n|---|---|---|---|---|---|\n")
		}
		for _, t := range l.Tools {
			lines, installs := []string{}, []string{installCell(t.Command, t.Install)}
			for _, alt := range t.fallbacks() {
				lines, installs = append(lines, alt.CommandLine), append(installs, installCell(alt.Command, alt.Install))
			}
			fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s | %s | %s |", t.ID, escape(t.CommandLine), cellOrDash(escape(t.Purpose)),
				cmp.Or(escape(t.WorkspaceCode), "no"), codeList(lines...), cellOrDash(strings.Join(slices.DeleteFunc(installs, func(s string) bool { return s == "" }), "; ")))
			if checked {
				fmt.Fprintf(&b, " %s |", statusCell(t.Status))
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

type executable struct {
	name    string
	users   []string
	install string
}

func executables(langs []Language) []executable {
	byName := map[string]*executable{}
	add := func(name, user, install string) {
		e := byName[name]
		if e == nil {
			e = &executable{name: name}
			byName[name] = e
		}
		if !slices.Contains(e.users, user) {
			e.users = append(e.users, user)
		}
		if e.install == "" && install != "" {
			e.install = installCell(name, install)
		}
	}
	for _, l := range langs {
		for _, t := range l.Tools {
			add(t.Command, l.ID, t.Install)
			for _, alt := range t.fallbacks() {
				add(alt.Command, l.ID+" (fallback)", alt.Install)
			}
		}
	}
	out := make([]executable, 0, len(byName))
	for _, e := range byName {
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func statusCell(s *Status) string {
	switch {
	case s == nil:
		return "-"
	case !s.Available:
		return "missing"
	case s.UsesFallback:
		return "fallback " + s.Version
	case s.Version != "":
		return "ok " + s.Version
	}
	return "ok"
}

func escape(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

func cellOrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// installCell renders a package URL and the command that installs it,
// or what to do instead.
func installCell(executable, purl string) string {
	if purl == "" {
		return ""
	}
	cell := "`" + escape(purl) + "`"
	command, note := installFields(executable, purl)
	switch {
	case command != "":
		cell += ": `" + command + "`"
	case note != "":
		cell += " (" + escape(note) + ")"
	}
	return cell
}

// codeList renders the non-empty items as code, or a dash.
func codeList(items ...string) string {
	var parts []string
	for _, s := range items {
		if s != "" {
			parts = append(parts, "`"+s+"`")
		}
	}
	return cellOrDash(strings.Join(parts, ", "))
}

// quoted returns args with shell-style quotes where a reader would need
// them to see argument boundaries (commands never run through a shell).
func quoted(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t'\"$&|;<>*?()") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return out
}

func quoteArgs(args []string) string { return strings.Join(quoted(args), " ") }

// Prober finds executables and asks them for their version.
type Prober struct {
	LookPath func(string) (string, error) // nil: exec.LookPath, toolpath.LookPath for servers
	Timeout  time.Duration                // per version probe
}

// Check fills in the Status of every tool and reports whether all are
// available (directly or through their fallback).
func (p Prober) Check(ctx context.Context, set *spec.Set, langs []Language) bool {
	if p.Timeout == 0 {
		p.Timeout = 10 * time.Second
	}
	probes := versionProbes(set)
	var mu sync.Mutex
	versions := map[string]string{} // executable -> version, probed once
	version := func(ctx context.Context, command, path string) string {
		mu.Lock()
		v, done := versions[command]
		mu.Unlock()
		if done {
			return v
		}
		v = p.version(ctx, path, probes[command])
		mu.Lock()
		versions[command] = v
		mu.Unlock()
		return v
	}
	all := true
	var wg sync.WaitGroup
	for li := range langs {
		for ti := range langs[li].Tools {
			t := &langs[li].Tools[ti]
			st := &Status{}
			t.Status = st
			lookPath := p.LookPath
			if lookPath == nil {
				// Servers are looked up as the semantic agent looks
				// them up, in ~/.dotnet/tools too; CLI tools on PATH.
				lookPath = exec.LookPath
				if t.Server {
					lookPath = toolpath.LookPath
				}
			}
			command := t.Command
			path, err := lookPath(command)
			for _, alt := range t.fallbacks() {
				if err == nil {
					break
				}
				if altPath, altErr := lookPath(alt.Command); altErr == nil {
					command, path, err, st.UsesFallback = alt.Command, altPath, nil, true
				}
			}
			if err != nil {
				st.Error = fmt.Sprintf("%s not found on PATH", t.Command)
				all = false
				continue
			}
			st.Available, st.Command, st.Path = true, command, path
			wg.Add(1)
			go func() {
				defer wg.Done()
				st.Version = version(ctx, command, path)
			}()
		}
	}
	wg.Wait()
	return all
}

// versionProbes maps an executable to the first version probe a spec gives
// for it; executables without one are asked `--version`.
func versionProbes(set *spec.Set) map[string]*spec.VersionProbe {
	out := map[string]*spec.VersionProbe{}
	for _, f := range set.Languages {
		for _, key := range f.ToolOrder {
			t := f.Tools[key]
			if t.Version != nil && out[t.Command] == nil {
				out[t.Command] = t.Version
			}
		}
		if s := f.Semantic; s != nil {
			for _, srv := range s.Candidates {
				if srv.Version != nil && out[srv.Command] == nil {
					out[srv.Command] = srv.Version
				}
			}
		}
	}
	return out
}

var firstVersion = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\d+\.\d+(?:\.\d+)?(?:[-+][\w.]+)?`) })

func (p Prober) version(ctx context.Context, path string, probe *spec.VersionProbe) string {
	args := []string{"--version"}
	re := firstVersion()
	if probe != nil {
		args = probe.Args
		if probe.Regex != "" {
			re = regexp.MustCompile(probe.Regex) // validated when the spec loaded
		}
	}
	res, err := runner.Run(ctx, runner.Command{Path: path, Args: args, Timeout: p.Timeout, MaxOutput: 64 << 10})
	if err != nil || res == nil || res.ExitCode != 0 {
		// A failed probe prints an error, whose numbers are no version
		// (pyright-langserver --version shows a dependency's in a trace).
		return ""
	}
	m := re.FindStringSubmatch(res.Stdout + "\n" + res.Stderr)
	switch {
	case m == nil:
		return ""
	case len(m) > 1:
		return m[1]
	}
	return m[0]
}
