// Command fakeroslyn is a scripted LSP peer that behaves like the Roslyn
// language server (Microsoft.CodeAnalysis.LanguageServer) closely enough to
// test a Roslyn dialect client on machines without .NET: the same launch
// arguments, the Content-Length framed JSON-RPC 2.0 wire format, Roslyn's
// solution/open and project/open notifications, empty answers until the
// workspace has loaded, workspace/projectInitializationComplete, pull-only
// diagnostics and the -30099 non-fatal error. Answers come from a small
// regex-based index of the opened C# sources, not from canned data.
//
// Behaviour is tuned with environment variables:
//
//	FAKEROSLYN_LOAD_DELAY=200ms   time from solution/open to ready (Go duration or milliseconds)
//	FAKEROSLYN_HIERARCHY=1        advertise and serve type/call hierarchy (2026+ builds)
//	FAKEROSLYN_FAIL_30099=N       the first N navigation requests fail with -30099
//	FAKEROSLYN_NEVER_READY=1      never finish loading (no projectInitializationComplete)
//	FAKEROSLYN_EXIT_AFTER=N       answer N requests, then exit with status 3 on the next
//	FAKEROSLYN_REPLY_TIMEOUT=5s   how long to wait for answers to server->client requests
package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr))
}

// config is the launch configuration from arguments and environment.
type config struct {
	logLevel     string
	logDir       string
	loadDelay    time.Duration
	hierarchy    bool
	fail30099    int
	neverReady   bool
	exitAfter    int // 0: never
	replyTimeout time.Duration
}

func run(args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, err := parseConfig(args, getenv)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	s, err := newServer(cfg, stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return s.serve(stdin)
}

func parseConfig(args []string, getenv func(string) string) (*config, error) {
	cfg := &config{logLevel: "Information", loadDelay: 200 * time.Millisecond, replyTimeout: 5 * time.Second}
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
				return nil, err
			}
			switch v {
			case "Trace", "Debug", "Information", "Warning", "Error", "Critical", "None":
				cfg.logLevel = v
			default:
				return nil, usageError(fmt.Sprintf("Cannot parse argument '%s' for option '--logLevel' as expected type 'Microsoft.Extensions.Logging.LogLevel'.", v))
			}
		case "--extensionLogDirectory":
			v, err := needValue()
			if err != nil {
				return nil, err
			}
			cfg.logDir = v
		default:
			return nil, usageError(fmt.Sprintf("Unrecognized command or argument '%s'.", args[i]))
		}
	}
	if !stdio {
		return nil, fmt.Errorf("fakeroslyn: only --stdio transport is supported (named pipes are not)")
	}
	var err error
	if v := getenv("FAKEROSLYN_LOAD_DELAY"); v != "" {
		if cfg.loadDelay, err = parseDuration(v); err != nil {
			return nil, fmt.Errorf("FAKEROSLYN_LOAD_DELAY: %w", err)
		}
	}
	if v := getenv("FAKEROSLYN_REPLY_TIMEOUT"); v != "" {
		if cfg.replyTimeout, err = parseDuration(v); err != nil {
			return nil, fmt.Errorf("FAKEROSLYN_REPLY_TIMEOUT: %w", err)
		}
	}
	cfg.hierarchy = getenv("FAKEROSLYN_HIERARCHY") == "1"
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
	return cfg, nil
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
