package semantic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/plugins/pluginapi"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// requireTool fails the test when a pinned tool is missing.
func requireTool(t testing.TB, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Fatalf("%s is not on PATH; install the pinned tools with scripts/install-tools.sh and put .tools/bin on PATH (scripts/test.sh does)", name)
	}
}

// copyTree copies a fixture into a temporary directory so tests may edit it.
func copyTree(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

func testLogger() hclog.Logger {
	if os.Getenv("LANGHOST_TEST_LOG") != "" {
		return hclog.New(&hclog.LoggerOptions{Level: hclog.LevelFromString(os.Getenv("LANGHOST_TEST_LOG")), Output: os.Stderr})
	}
	return hclog.NewNullLogger()
}

func openEngine(t testing.TB, root, lang string, cfg Config) *Engine {
	t.Helper()
	e := New(testLogger())
	raw, _ := json.Marshal(cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := e.Open(ctx, pluginapi.OpenRequest{Root: root, Language: lang, Config: raw}, nil); err != nil {
		t.Fatalf("Open %s: %v", root, err)
	}
	t.Cleanup(func() { e.Shutdown(context.Background()) })
	return e
}

var goplsConfig = Config{
	Command:     "gopls",
	RootMarkers: []string{"go.mod"},
	LanguageIDs: map[string]string{".go": "go"},
	Settings:    map[string]any{"gopls": map[string]any{"symbolScope": "workspace"}},
}

var pyrightConfig = Config{
	Command:      "pyright-langserver",
	Args:         []string{"--stdio"},
	ReadyMessage: `Found \d+ source files?|No source files found`,
	RootMarkers:  []string{"pyproject.toml", "setup.py"},
	LanguageIDs:  map[string]string{".py": "python"},
	Settings:     map[string]any{"python": map[string]any{"analysis": map[string]any{"diagnosticMode": "workspace"}}},
}

var tsConfig = Config{
	Command:          "typescript-language-server",
	Args:             []string{"--stdio"},
	RootMarkers:      []string{"tsconfig.json", "jsconfig.json", "package.json"},
	LanguageIDs:      map[string]string{".ts": "typescript", ".tsx": "typescriptreact", ".js": "javascript"},
	OpenFileOnStart:  true,
	DiagnosticsQuiet: "1s", // as the shipped specs say
}

// shared holds one server per language for the whole test binary.
type shared struct {
	once sync.Once
	e    *Engine
	root string
	err  error
}

var sharedGo, sharedPy, sharedTS shared

// get starts the shared server on a copy of fixture plus extra files (path
// relative to the root -> content).
func (s *shared) get(t *testing.T, tool, fixture string, extra map[string]string, lang string, cfg Config) (*Engine, string) {
	t.Helper()
	requireTool(t, tool)
	s.once.Do(func() {
		dir, err := os.MkdirTemp("", "langhost-semantic-*")
		if err != nil {
			s.err = err
			return
		}
		if err := os.CopyFS(dir, os.DirFS(fixture)); err != nil {
			s.err = err
			return
		}
		for name, content := range extra {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				s.err = err
				return
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				s.err = err
				return
			}
		}
		s.root = dir
		s.e = New(testLogger())
		raw, _ := json.Marshal(cfg)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		s.err = s.e.Open(ctx, pluginapi.OpenRequest{Root: dir, Language: lang, Config: raw}, nil)
	})
	if s.err != nil {
		t.Fatalf("starting shared %s: %v", tool, s.err)
	}
	return s.e, s.root
}

// messyGo is the input of the format and organize_imports tests. It is
// written at run time because a committed unformatted .go file would trip
// the repository's gofmt check.
const messyGo = "package messy\n\nimport (\n\t\"strings\"\n\t\"fmt\"\n)\n\nfunc Shout(s string)string{\nreturn fmt.Sprint(strings.ToUpper(s))\n}\n"

func goEngine(t *testing.T) (*Engine, string) {
	return sharedGo.get(t, "gopls", filepath.Join("testdata", "gomod"), map[string]string{"messy/messy.go": messyGo}, "go", goplsConfig)
}

func pyEngine(t *testing.T) (*Engine, string) {
	return sharedPy.get(t, "pyright-langserver", filepath.Join("testdata", "pypkg"), nil, "python", pyrightConfig)
}

func tsEngine(t *testing.T) (*Engine, string) {
	return sharedTS.get(t, "typescript-language-server", filepath.Join("testdata", "tsproj"), nil, "typescript", tsConfig)
}

func TestMain(m *testing.M) {
	// Transactions keep their records in the user's state dir; the tests'
	// records belong in a temporary one, not in ~/.local/state.
	state, err := os.MkdirTemp("", "langhost-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_STATE_HOME", state)
	code := m.Run()
	for _, s := range []*shared{&sharedGo, &sharedPy, &sharedTS, &sharedCS} {
		if s.e != nil {
			s.e.Shutdown(context.Background())
			os.RemoveAll(s.root)
		}
	}
	os.RemoveAll(state)
	os.Exit(code)
}

// invoke runs an operation and decodes its output into a generic value.
func invoke(t *testing.T, e *Engine, op string, input any) (map[string]any, error) {
	t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := e.Invoke(ctx, pluginapi.InvokeRequest{Operation: op, Input: raw}, nil)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("%s output is not a JSON object: %v\n%s", op, err, out)
	}
	return m, nil
}

func mustInvoke(t *testing.T, e *Engine, op string, input any) map[string]any {
	t.Helper()
	m, err := invoke(t, e, op, input)
	if err != nil {
		t.Fatalf("%s %v: %v", op, input, err)
	}
	return m
}

func wantCode(t *testing.T, err error, code failure.Code, field string) *failure.Error {
	t.Helper()
	var fe *failure.Error
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T) is not a *failure.Error, want %s", err, err, code)
	}
	if fe.Code != code || (field != "" && fe.Field != field) {
		t.Fatalf("error %q has code %s field %q, want %s field %q", err, fe.Code, fe.Field, code, field)
	}
	return fe
}

func dump(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// get follows a dotted path ("references.0.line") through decoded JSON.
func get(t *testing.T, v any, path string) any {
	t.Helper()
	cur := v
	for _, part := range strings.Split(path, ".") {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[part]
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i >= len(c) {
				t.Fatalf("path %s: no element %s in %s", path, part, dump(v))
			}
			cur = c[i]
		default:
			t.Fatalf("path %s: cannot index %T at %s in %s", path, cur, part, dump(v))
		}
	}
	if f, ok := cur.(float64); ok {
		return int(f)
	}
	return cur
}

// loc renders an output location as "file:line:column".
func locOf(t *testing.T, v any, path string) string {
	t.Helper()
	prefix := ""
	if path != "" {
		prefix = path + "."
	}
	return fmt.Sprintf("%s:%d:%d", get(t, v, prefix+"file"), get(t, v, prefix+"line"), get(t, v, prefix+"column"))
}

func readFile(t *testing.T, root, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
