package detect_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/detect"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/languages"
)

// shipped loads the embedded specs, the ones detection runs on by default.
func shipped(t *testing.T) []*spec.File {
	t.Helper()
	set := spec.Load([]spec.Source{{Name: "embedded", FS: languages.FS, Label: "embedded"}})
	if len(set.Problems) > 0 {
		t.Fatalf("shipped specs: %v", set.Problems)
	}
	return set.Languages
}

// tree writes files (name -> content; a name ending in / is a directory).
func tree(t *testing.T, files ...string) string {
	t.Helper()
	root := t.TempDir()
	for _, name := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestDetect(t *testing.T) {
	langs := shipped(t)
	tests := []struct {
		name  string
		files []string
		want  []string
	}{
		{"go module", []string{"go.mod", "main.go", "internal/x/x.go"}, []string{"go"}},
		{"go.mod alone", []string{"go.mod"}, []string{"go"}},
		{"python by marker", []string{"pyproject.toml", "README.md"}, []string{"python"}},
		{"typescript, not javascript", []string{"package.json", "src/index.ts"}, []string{"typescript"}},
		{"package.json alone says nothing", []string{"package.json"}, nil},
		{"csharp by glob", []string{"App.csproj"}, []string{"csharp"}},
		{"mixed", []string{"go.mod", "tools/gen.py", "web/app.tsx"}, []string{"python", "typescript", "go"}},
		{"upper-case extension", []string{"LEGACY.GO"}, []string{"go"}},
		{"skipped dirs", []string{"README.md", "node_modules/a/index.js", "vendor/x/y.go", ".git/hooks/h.py", "target/x.rs"}, nil},
		{"empty", nil, nil},
		// cli/cli: a root Makefile beside go.mod builds Go.
		{"makefile of a go module", []string{"Makefile", "go.mod", "main.go", "pkg/a.go", "pkg/b.go"}, []string{"go"}},
		{"makefile alone", []string{"Makefile", "README.md"}, []string{"c"}},
		{"makefile with c sources", []string{"Makefile", "go.mod", "main.go", "src/x.c"}, []string{"c", "go"}},
		{"ranked by files", []string{"a.py", "b.py", "c.py", "d.go"}, []string{"python", "go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := detect.Detect(context.Background(), tree(t, tt.files...), langs, detect.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.IDs(); !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Errorf("detected %v, want %v (%v)", got, tt.want, res.Languages)
			}
			for _, l := range res.Languages {
				if len(l.Reasons) == 0 {
					t.Errorf("%s detected without a reason", l.ID)
				}
			}
		})
	}
}

func TestDetectReasons(t *testing.T) {
	res, err := detect.Detect(context.Background(), tree(t, "go.mod", "cmd/main.go"), shipped(t), detect.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := "go (1 file with extension .go, e.g. cmd/main.go; go.mod is a project file)"
	if len(res.Languages) != 1 || res.Languages[0].String() != want {
		t.Errorf("got %v, want %s", res.Languages, want)
	}
}

func TestDetectProject(t *testing.T) {
	tests := []struct {
		name    string
		files   []string
		project []string // languages with a project file near the root
	}{
		{"go module with fixtures", []string{"go.mod", "main.go", "internal/testdata/x.c", "doc/static/app.js"}, []string{"go"}},
		{"monorepo", []string{"backend/go.mod", "backend/main.go", "web/package.json", "web/src/index.ts"}, []string{"go", "typescript"}},
		{"project file deep in test data", []string{"go.mod", "a.go", "internal/testdata/proj/Cargo.toml", "internal/testdata/proj/main.rs"}, []string{"go"}},
		{"sources only", []string{"script.py", "lib/util.py"}, nil},
		{"a few js files in a typescript project", []string{"package.json", "tsconfig.json", "eslint.config.js",
			"src/a.ts", "src/b.ts", "src/c.ts", "src/d.ts", "src/e.ts", "src/f.ts", "src/g.ts", "src/h.ts", "src/i.ts", "src/j.ts", "src/k.ts"}, []string{"typescript"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := detect.Detect(context.Background(), tree(t, tt.files...), shipped(t), detect.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range res.Languages {
				if l.Project {
					got = append(got, l.ID)
				}
			}
			if !slices.Equal(got, tt.project) {
				t.Errorf("projects %v, want %v (%v)", got, tt.project, res.Languages)
			}
		})
	}
}

// TestDetectIgnoredSaysWhy: a language with a project file but not chosen
// is listed with the reason, so that `languages --detected` can say it.
func TestDetectIgnoredSaysWhy(t *testing.T) {
	res, err := detect.Detect(context.Background(), tree(t, "Makefile", "go.mod", "main.go"), shipped(t), detect.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.IDs(); !slices.Equal(got, []string{"go"}) {
		t.Fatalf("detected %v", got)
	}
	if len(res.Ignored) != 1 || res.Ignored[0].ID != "c" ||
		!strings.Contains(res.Ignored[0].String(), "Makefile is a project file, but the workspace has no file with extension .c or .h and is a go project") {
		t.Errorf("ignored %v", res.Ignored)
	}
	if !res.Languages[0].Project || res.Languages[0].Files != 1 {
		t.Errorf("go: %+v", res.Languages[0])
	}
}

func TestDetectLimits(t *testing.T) {
	langs := shipped(t)
	deep := "a/b/c/d/e/f/g/h/i/j/main.go"
	res, err := detect.Detect(context.Background(), tree(t, deep), langs, detect.Limits{MaxDepth: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Languages) != 0 {
		t.Errorf("found %v below the depth limit", res.Languages)
	}
	var many []string
	for i := range 50 {
		many = append(many, fmt.Sprintf("d/f%02d.txt", i))
	}
	many = append(many, "z/main.go")
	res, err = detect.Detect(context.Background(), tree(t, many...), langs, detect.Limits{MaxEntries: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || res.Entries > 11 || len(res.Languages) != 0 {
		t.Errorf("entries %d truncated %v languages %v", res.Entries, res.Truncated, res.Languages)
	}
}

// A symlink to a directory outside the workspace is not followed, and a
// symlinked file does not count: its target may be anywhere.
func TestDetectNeverFollowsSymlinks(t *testing.T) {
	outside := tree(t, "go.mod", "main.go", "lib.py")
	root := tree(t, "README.md")
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "lib.py"), filepath.Join(root, "lib.py")); err != nil {
		t.Fatal(err)
	}
	res, err := detect.Detect(context.Background(), root, shipped(t), detect.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Languages) != 0 {
		t.Errorf("detected %v through symlinks", res.Languages)
	}
}

func TestDetectMissingRoot(t *testing.T) {
	_, err := detect.Detect(context.Background(), filepath.Join(t.TempDir(), "nope"), shipped(t), detect.Limits{})
	if err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("err = %v", err)
	}
}

func TestDetectCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := detect.Detect(ctx, tree(t, "a/main.go"), shipped(t), detect.Limits{}); err == nil {
		t.Error("a canceled walk succeeded")
	}
}

// TestDetectSamples: languages seen only in test data, fixtures, examples
// or third-party code are ignored, saying so; the workspace's own
// languages are main, minor ones are not.
func TestDetectSamples(t *testing.T) {
	langs := shipped(t)
	tests := []struct {
		name          string
		files         []string
		detected      []string
		main          []string
		ignored       []string
		ignoredReason string
	}{
		{"langhost-like", []string{"go.mod", "main.go", "host/a.go", "languages/testdata/rust/calc/Cargo.toml", "languages/testdata/rust/calc/src/lib.rs",
			"languages/testdata/java/broken/src/app/App.java", "bench/scenarios/fixtures/py/stats.py", "Examples/demo/x.ts", "third_party/lib/x.c"},
			[]string{"go"}, []string{"go"}, []string{"c", "java", "python", "rust", "typescript"}, "only in test data, fixtures, examples or third-party code (2 files, e.g. languages/testdata/rust/calc/"},
		{"own sources beside samples count", []string{"go.mod", "main.go", "tools/gen.py", "testdata/x.py"}, []string{"go", "python"}, []string{"go", "python"}, nil, ""},
		{"minor language is not main", []string{"go.mod", "a.go", "b.go", "c.go", "d.go", "e.go", "f.go", "g.go", "h.go", "i.go", "j.go", "k.go", "doc/app.js"},
			[]string{"go", "javascript"}, []string{"go"}, nil, ""},
		{"sources only: the language with a share is main", []string{"a.py", "b.py", "c.py", "d.py", "e.py", "f.py", "g.py", "h.py", "i.py", "j.py", "k.py", "x.go"},
			[]string{"python", "go"}, []string{"python"}, nil, ""},
		{"a directory merely named like a sample file", []string{"testdata.go", "go.mod"}, []string{"go"}, []string{"go"}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := detect.Detect(context.Background(), tree(t, tt.files...), langs, detect.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.IDs(); !slices.Equal(got, tt.detected) {
				t.Errorf("detected %v, want %v", got, tt.detected)
			}
			if got := res.MainIDs(); !slices.Equal(got, tt.main) {
				t.Errorf("main %v, want %v (%v)", got, tt.main, res.Languages)
			}
			var ignored []string
			for _, l := range res.Ignored {
				ignored = append(ignored, l.ID)
				if l.ID == "rust" && !strings.Contains(l.String(), tt.ignoredReason) {
					t.Errorf("rust ignored as %q, want %q", l.String(), tt.ignoredReason)
				}
			}
			slices.Sort(ignored)
			if !slices.Equal(ignored, tt.ignored) {
				t.Errorf("ignored %v, want %v", ignored, tt.ignored)
			}
		})
	}
}
