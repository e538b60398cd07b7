package difftest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/langhost/langhost/internal/lsptest/csharpls"
)

var (
	buildOnce sync.Once
	exePath   string
	buildErr  error
)

// langhostExe builds ./cmd/langhost once per test process.
func langhostExe(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "langhost-difftest-")
		if err != nil {
			buildErr = err
			return
		}
		exePath = filepath.Join(dir, "langhost")
		out, err := exec.Command("go", "build", "-o", exePath, filepath.Join(repoRoot(), "cmd", "langhost")).CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return exePath
}

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// testLanghost is langhost with configuration, state and daemon sockets of
// the test's own, so that no user config or daemon takes part.
func testLanghost(t testing.TB) Langhost {
	t.Helper()
	cfg := t.TempDir()
	// gopls writes its telemetry mode under the config directory.
	if err := os.MkdirAll(filepath.Join(cfg, "go", "telemetry"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "go", "telemetry", "mode"), []byte("off"), 0o644); err != nil {
		t.Fatal(err)
	}
	run, err := os.MkdirTemp("", "lh-run-") // short: the daemon's socket lives here
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	env := append(os.Environ(), "XDG_CONFIG_HOME="+cfg, "XDG_STATE_HOME="+t.TempDir(), "XDG_RUNTIME_DIR="+run)
	return Langhost{Exe: langhostExe(t), Env: env}
}

// requireServer fails the test when lang's pinned server is missing.
func requireServer(t testing.TB, lang Language) {
	t.Helper()
	if lang.ID == "csharp" {
		csharpls.Require(t)
		return
	}
	if _, err := exec.LookPath(lang.Argv[0]); err != nil {
		t.Fatalf("%s is not on PATH; install the pinned tools with scripts/install-tools.sh and put .tools/bin on PATH (scripts/test.sh does)", lang.Argv[0])
	}
}

// copyFixture copies a testdata project into a temporary directory.
func copyFixture(t testing.TB, rel string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(rel))
	if err := os.CopyFS(dst, os.DirFS(filepath.Join(repoRoot(), rel))); err != nil {
		t.Fatal(err)
	}
	return dst
}

// compileCommands writes the compile_commands.json clangd's background
// index needs to know every .c file of dir.
func compileCommands(t testing.TB, dir string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.c"))
	if err != nil {
		t.Fatal(err)
	}
	var cmds []map[string]string
	for _, f := range files {
		cmds = append(cmds, map[string]string{"directory": dir, "file": f, "command": "cc -c " + f})
	}
	raw, _ := json.Marshal(cmds)
	if err := os.WriteFile(filepath.Join(dir, "compile_commands.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

// fixtures are the testdata projects the harness runs on in CI: every
// real server, on the projects the semantic tests use.
var fixtures = []struct {
	lang, dir string
	prepare   func(t testing.TB, dir string)
}{
	{lang: "go", dir: "plugins/semantic/testdata/gomod"},
	{lang: "go", dir: "languages/testdata/go/tests"},
	{lang: "python", dir: "plugins/semantic/testdata/pypkg"},
	{lang: "typescript", dir: "plugins/semantic/testdata/tsproj"},
	{lang: "csharp", dir: "plugins/semantic/testdata/zoo"},
	{lang: "c", dir: "languages/testdata/c/clangd", prepare: compileCommands},
}

// TestDifferentialTestdata holds langhost's answers, through the CLI via
// the daemon, the CLI with --no-daemon and MCP, to the bare server's on
// the testdata projects: any difference that is not a known one fails.
func TestDifferentialTestdata(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.lang+"/"+filepath.Base(f.dir), func(t *testing.T) {
			lang := Languages[f.lang]
			requireServer(t, lang)
			ws := copyFixture(t, f.dir)
			if f.prepare != nil {
				f.prepare(t, ws)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			var log strings.Builder
			rep, err := Run(ctx, Config{
				Lang: lang, WS: ws, Langhost: testLanghost(t),
				Paths: []string{"cli-daemon", "cli-no-daemon", "mcp"}, PerCategory: 2, ColdLimit: 1, Log: &log,
			})
			if err != nil {
				t.Fatalf("%v\n%s", err, log.String())
			}
			var out strings.Builder
			rep.Write(&out)
			t.Log("\n" + out.String())
			compared := 0
			for _, tl := range rep.Tallies {
				compared += tl.Identical + tl.Different
			}
			// The harness must have asked something of every kind of
			// target it found, or it proves nothing.
			if len(rep.Targets) == 0 || compared < 20 {
				t.Fatalf("only %d targets and %d answers compared", len(rep.Targets), compared)
			}
			for _, d := range rep.Unexplained() {
				t.Errorf("%s", d)
			}
		})
	}
}
