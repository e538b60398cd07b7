// Command fakeroslyn is a scripted LSP peer that behaves like the Roslyn
// language server (Microsoft.CodeAnalysis.LanguageServer) closely enough to
// test a Roslyn dialect client on machines without .NET: the same launch
// arguments, the Content-Length framed JSON-RPC 2.0 wire format, Roslyn's
// solution/open and project/open notifications, empty answers until the
// workspace has loaded, workspace/projectInitializationComplete, pull-only
// diagnostics and the -30099 non-fatal error. Answers come from a small
// regex-based index of the opened C# sources, not from canned data.
//
// Run under a name starting with "csharp-ls" (or with
// FAKEROSLYN_FLAVOR=csharp-ls) it behaves like csharp-ls
// (razzmatazz/csharp-language-server) instead: its arguments (--solution,
// --loglevel), a plain LSP start-up in which it finds and loads the
// solution (else the projects) under its root by itself, requests held
// until loading is done, no Roslyn notifications, and diagnostics pushed
// to clients that cannot pull them.
//
// Behaviour is tuned with environment variables:
//
//	FAKEROSLYN_LOAD_DELAY=200ms   time from solution/open to ready (Go duration or milliseconds)
//	FAKEROSLYN_LOAD_REPORT=100ms  while loading, report progress this often (a $/progress report,
//	                              else a log message), as a server loading a large solution does
//	FAKEROSLYN_HIERARCHY=1        advertise and serve type/call hierarchy (2026+ builds)
//	FAKEROSLYN_FAIL_30099=N       the first N navigation requests fail with -30099 (roslyn only)
//	FAKEROSLYN_NEVER_READY=1      never finish loading (no projectInitializationComplete)
//	FAKEROSLYN_EXIT_AFTER=N       answer N requests, then exit with status 3 on the next
//	FAKEROSLYN_REPLY_TIMEOUT=5s   how long to wait for answers to server->client requests
//	FAKEROSLYN_NEVER_ANSWER=m,... never answer requests of these methods (initialize: a server that hangs)
//	FAKEROSLYN_RENAME_EDIT=FILE   answer textDocument/rename with the WorkspaceEdit in FILE, read at each request
//	FAKEROSLYN_MALFORMED_ONCE=F   the first workspace/symbol request, when file F does not exist yet
//	                              (F is created), is answered with a broken Content-Length header, and
//	                              the server then lingers until killed
//	FAKEROSLYN_LOG=FILE           also write the log (every message received, with the load state) to FILE
//	FAKEROSLYN_FLAVOR=csharp-ls   behave like csharp-ls whatever the executable's name
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func main() {
	os.Exit(run(filepath.Base(os.Args[0]), os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr))
}

// Flavors: which server the fake behaves like.
const (
	flavorRoslyn   = "roslyn"
	flavorCSharpLS = "csharp-ls"
)

// fakeVersion is what csharp-ls --version prints.
const fakeVersion = "0.0.0-fakeroslyn"

// config is the launch configuration from arguments and environment.
type config struct {
	flavor        string
	solution      string // csharp-ls --solution
	logLevel      string
	logDir        string
	logFile       string
	loadDelay     time.Duration
	loadReport    time.Duration // 0: no reports while loading
	hierarchy     bool
	fail30099     int
	neverReady    bool
	exitAfter     int // -1: never
	replyTimeout  time.Duration
	neverAnswer   map[string]bool
	renameEdit    string
	malformedOnce string
	printVersion  bool
}

// run is the whole program; name is the base name it was run under.
func run(name string, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, err := parseConfig(name, args, getenv)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if cfg.printVersion {
		fmt.Fprintln(stdout, fakeVersion)
		return 0
	}
	s, err := newServer(cfg, stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return s.serve(stdin)
}

func parseConfig(name string, args []string, getenv func(string) string) (*config, error) {
	cfg := &config{flavor: flavorRoslyn, logLevel: "Information", loadDelay: 200 * time.Millisecond, replyTimeout: 5 * time.Second, exitAfter: -1}
	if strings.HasPrefix(name, "csharp-ls") || getenv("FAKEROSLYN_FLAVOR") == flavorCSharpLS {
		cfg.flavor = flavorCSharpLS
		if err := parseCSharpLSArgs(cfg, args); err != nil {
			return nil, err
		}
	} else if err := parseRoslynArgs(cfg, args); err != nil {
		return nil, err
	}
	var err error
	if v := getenv("FAKEROSLYN_LOAD_DELAY"); v != "" {
		if cfg.loadDelay, err = parseDuration(v); err != nil {
			return nil, fmt.Errorf("FAKEROSLYN_LOAD_DELAY: %w", err)
		}
	}
	if v := getenv("FAKEROSLYN_LOAD_REPORT"); v != "" {
		if cfg.loadReport, err = parseDuration(v); err != nil || cfg.loadReport <= 0 {
			return nil, fmt.Errorf("FAKEROSLYN_LOAD_REPORT: want a positive duration, got %q", v)
		}
	}
	if v := getenv("FAKEROSLYN_REPLY_TIMEOUT"); v != "" {
		if cfg.replyTimeout, err = parseDuration(v); err != nil {
			return nil, fmt.Errorf("FAKEROSLYN_REPLY_TIMEOUT: %w", err)
		}
	}
	// csharp-ls has type and call hierarchy; Roslyn only in 2026+ builds.
	cfg.hierarchy = getenv("FAKEROSLYN_HIERARCHY") == "1" || cfg.flavor == flavorCSharpLS
	cfg.neverReady = getenv("FAKEROSLYN_NEVER_READY") == "1"
	for _, e := range []struct {
		name string
		dst  *int
	}{{"FAKEROSLYN_FAIL_30099", &cfg.fail30099}, {"FAKEROSLYN_EXIT_AFTER", &cfg.exitAfter}} {
		if v := getenv(e.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%s: want a non-negative integer, got %q", e.name, v)
			}
			*e.dst = n
		}
	}
	cfg.neverAnswer = map[string]bool{}
	for _, m := range strings.Split(getenv("FAKEROSLYN_NEVER_ANSWER"), ",") {
		if m = strings.TrimSpace(m); m != "" {
			cfg.neverAnswer[m] = true
		}
	}
	cfg.renameEdit = getenv("FAKEROSLYN_RENAME_EDIT")
	cfg.malformedOnce = getenv("FAKEROSLYN_MALFORMED_ONCE")
	cfg.logFile = getenv("FAKEROSLYN_LOG")
	return cfg, nil
}

// parseRoslynArgs parses the Roslyn server's command line.
func parseRoslynArgs(cfg *config, args []string) error {
	stdio := false
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(args[i], "=")
		needValue := func() (string, error) {
			if hasValue {
				return value, nil
			}
			if i+1 >= len(args) || strings.HasPrefix(args[i+1], "--") {
				return "", usageError(fmt.Sprintf("Required argument missing for option: '%s'.", name))
			}
			i++
			return args[i], nil
		}
		switch name {
		case "--stdio":
			stdio = true
		case "--logLevel":
			v, err := needValue()
			if err != nil {
				return err
			}
			switch v {
			case "Trace", "Debug", "Information", "Warning", "Error", "Critical", "None":
				cfg.logLevel = v
			default:
				return usageError(fmt.Sprintf("Cannot parse argument '%s' for option '--logLevel' as expected type 'Microsoft.Extensions.Logging.LogLevel'.", v))
			}
		case "--extensionLogDirectory":
			v, err := needValue()
			if err != nil {
				return err
			}
			cfg.logDir = v
		default:
			return usageError(fmt.Sprintf("Unrecognized command or argument '%s'.", args[i]))
		}
	}
	if !stdio {
		return fmt.Errorf("fakeroslyn: only --stdio transport is supported (named pipes are not)")
	}
	return nil
}

// parseCSharpLSArgs parses csharp-ls's command line: it always speaks on
// stdio.
func parseCSharpLSArgs(cfg *config, args []string) error {
	for i := 0; i < len(args); i++ {
		value := func() (string, error) {
			if i+1 >= len(args) {
				return "", usageError(fmt.Sprintf("ERROR: option '%s' needs a value.", args[i]))
			}
			i++
			return args[i], nil
		}
		switch args[i] {
		case "-s", "--solution":
			v, err := value()
			if err != nil {
				return err
			}
			cfg.solution = v
		case "-l", "--loglevel":
			v, err := value()
			if err != nil {
				return err
			}
			switch v {
			case "error", "warning", "info", "log", "debug", "trace":
				cfg.logLevel = v
			default:
				return usageError(fmt.Sprintf("ERROR: invalid log level '%s'.", v))
			}
		case "-v", "--version":
			cfg.printVersion = true
		default:
			return usageError(fmt.Sprintf("ERROR: unknown option '%s'.", args[i]))
		}
	}
	return nil
}

// usageError is a command-line error worded like System.CommandLine's,
// which the real server uses to parse its arguments.
type usageError string

func (e usageError) Error() string { return string(e) }

// parseDuration accepts a Go duration ("250ms") or plain milliseconds ("250").
func parseDuration(v string) (time.Duration, error) {
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Millisecond, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("want a duration such as 200ms, got %q", v)
	}
	return d, nil
}
