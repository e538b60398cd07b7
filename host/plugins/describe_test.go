package plugins_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/langhost/langhost/host/plugins"
	"github.com/langhost/langhost/plugins/pluginapi"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// describeFixture is a test plugin behind its own copy of the executable
// (so that touching it changes nothing for other tests), a marker file
// counting the processes it started, and a manager caching in a fresh
// directory.
type describeFixture struct {
	t      *testing.T
	launch plugins.Launch
	marker string
	cache  string
	m      *plugins.Manager
}

func newDescribeFixture(t *testing.T) *describeFixture {
	t.Helper()
	dir := t.TempDir()
	exe := filepath.Join(dir, "testplugin")
	data, err := os.ReadFile(testPlugin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	f := &describeFixture{t: t, launch: plugins.Launch{Name: "testagent", Path: exe},
		marker: filepath.Join(dir, "started"), cache: filepath.Join(dir, "cache", "describe")}
	t.Setenv("TESTAGENT_MARKER", f.marker)
	f.m = plugins.NewManager(nil, plugins.WithDescribeCache(f.cache))
	t.Cleanup(func() { _ = f.m.Close() })
	return f
}

// starts is how many plugin processes have started.
func (f *describeFixture) starts() int {
	data, err := os.ReadFile(f.marker)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		f.t.Fatal(err)
	}
	return strings.Count(string(data), "started")
}

func (f *describeFixture) describe(config string) (*pluginapi.Description, error) {
	return f.m.Describe(context.Background(), f.launch, json.RawMessage(config))
}

func (f *describeFixture) mustDescribe(config string) *pluginapi.Description {
	f.t.Helper()
	d, err := f.describe(config)
	if err != nil {
		f.t.Fatalf("Describe: %v", err)
	}
	return d
}

// cacheFiles lists the cache's entries.
func (f *describeFixture) cacheFiles() []string {
	f.t.Helper()
	files, err := filepath.Glob(filepath.Join(f.cache, "*.json"))
	if err != nil {
		f.t.Fatal(err)
	}
	return files
}

func opNames(d *pluginapi.Description) string {
	var names []string
	for _, op := range d.Operations {
		names = append(names, op.Name)
	}
	return strings.Join(names, ",")
}

const testagentOps = "echo,sleep,fail,crash,progress,opened,broken_output"

// TestDescribeCache: the first Describe starts the plugin, later ones read
// the cache, and a rebuilt plugin or another config is described again.
func TestDescribeCache(t *testing.T) {
	f := newDescribeFixture(t)
	if got := opNames(f.mustDescribe(`{"a":1}`)); got != testagentOps {
		t.Fatalf("operations = %s", got)
	}
	if n := f.starts(); n != 1 {
		t.Fatalf("%d processes started for the first Describe, want 1", n)
	}
	for range 3 {
		if got := opNames(f.mustDescribe(`{"a":1}`)); got != testagentOps {
			t.Fatalf("cached operations = %s", got)
		}
	}
	if n := f.starts(); n != 1 {
		t.Errorf("%d processes started, want 1: the cache was not used", n)
	}
	// A manager of another host process uses the same cache.
	other := plugins.NewManager(nil, plugins.WithDescribeCache(f.cache))
	defer other.Close()
	if _, err := other.Describe(context.Background(), f.launch, json.RawMessage(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	if n := f.starts(); n != 1 {
		t.Errorf("%d processes started, want 1: a second manager did not use the cache", n)
	}

	files := f.cacheFiles()
	if len(files) != 1 {
		t.Fatalf("cache files = %v", files)
	}
	for _, p := range []string{filepath.Dir(f.cache), f.cache, files[0]} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s has mode %v, want owner-only", p, fi.Mode().Perm())
		}
	}

	f.mustDescribe(`{"a":2}`) // another semantic block
	if n := f.starts(); n != 2 {
		t.Errorf("%d processes started, want 2: another config must be described anew", n)
	}
	// A rebuilt plugin has another modification time.
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(f.launch.Path, later, later); err != nil {
		t.Fatal(err)
	}
	f.mustDescribe(`{"a":1}`)
	if n := f.starts(); n != 3 {
		t.Errorf("%d processes started, want 3: a changed executable must be described anew", n)
	}
}

// TestDescribeHostileCache: a cache file that is damaged, forged for
// another key, oversized, not a regular file or describes invalid
// operations is ignored and replaced; none crashes or blocks Describe.
// hostileCacheCase is one way to damage or replace a cached description.
type hostileCacheCase struct {
	name    string
	corrupt func(t *testing.T, file string, data []byte)
}

func TestDescribeHostileCache(t *testing.T) {
	tests := []hostileCacheCase{
		{"truncated", func(t *testing.T, file string, data []byte) { write(t, file, data[:len(data)/2]) }},
		{"empty", func(t *testing.T, file string, _ []byte) { write(t, file, nil) }},
		{"not JSON", func(t *testing.T, file string, _ []byte) { write(t, file, []byte("\x00\xff garbage\n{")) }},
		{"body edited", func(t *testing.T, file string, data []byte) {
			// Valid JSON still, but the checksum no longer matches.
			write(t, file, []byte(strings.Replace(string(data), `"echo"`, `"ohce"`, 1)))
		}},
		{"header of another key", func(t *testing.T, file string, data []byte) {
			header, body, _ := strings.Cut(string(data), "\n")
			var h map[string]any
			if err := json.Unmarshal([]byte(header), &h); err != nil {
				t.Fatal(err)
			}
			h["key"] = "0123"
			nh, _ := json.Marshal(h)
			write(t, file, []byte(string(nh)+"\n"+body))
		}},
		{"forged invalid operations", func(t *testing.T, file string, data []byte) {
			// A consistent entry (checksum recomputed) describing an
			// operation name that would make a bad tool id.
			header, body, _ := strings.Cut(string(data), "\n")
			body = strings.Replace(body, `"echo"`, `"../echo"`, 1)
			write(t, file, []byte(rewriteSum(t, header, body)+"\n"+body))
		}},
		{"huge", func(t *testing.T, file string, data []byte) {
			fh, err := os.OpenFile(file, os.O_WRONLY|os.O_TRUNC, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			defer fh.Close()
			// Sparse: 64 MiB that take no disk space.
			if err := fh.Truncate(pluginapi.MaxDescriptionSize * 2); err != nil {
				t.Fatal(err)
			}
		}},
		{"symlink", func(t *testing.T, file string, data []byte) {
			// A valid entry elsewhere, reached through a symlink.
			target := filepath.Join(t.TempDir(), "elsewhere.json")
			write(t, target, data)
			os.Remove(file)
			if err := os.Symlink(target, file); err != nil {
				t.Fatal(err)
			}
		}},
	}
	tests = append(tests, unixHostileCacheCases()...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newDescribeFixture(t)
			f.mustDescribe(`{}`)
			files := f.cacheFiles()
			if len(files) != 1 {
				t.Fatalf("cache files = %v", files)
			}
			data, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			tt.corrupt(t, files[0], data)

			if got := opNames(f.mustDescribe(`{}`)); got != testagentOps {
				t.Errorf("operations = %s", got)
			}
			if n := f.starts(); n != 2 {
				t.Errorf("%d processes started, want 2 (the bad entry ignored)", n)
			}
			// Rebuilt: the next Describe reads the cache again.
			f.mustDescribe(`{}`)
			if n := f.starts(); n != 2 {
				t.Errorf("%d processes started, want 2: the entry was not rebuilt", n)
			}
		})
	}
}

func write(t *testing.T, file string, data []byte) {
	t.Helper()
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// rewriteSum returns the cache header with the checksum of body, as a
// forger would write it.
func rewriteSum(t *testing.T, header, body string) string {
	t.Helper()
	var h map[string]any
	if err := json.Unmarshal([]byte(header), &h); err != nil {
		t.Fatal(err)
	}
	h["sum"] = sha256Hex(body)
	nh, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	return string(nh)
}

// TestDescribeCacheDirNotOurs: a cache directory that is a symlink is not
// used, and describing still works.
func TestDescribeCacheDirNotOurs(t *testing.T) {
	f := newDescribeFixture(t)
	elsewhere := t.TempDir()
	if err := os.MkdirAll(filepath.Dir(f.cache), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, f.cache); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		f.mustDescribe(`{}`)
	}
	if n := f.starts(); n != 2 {
		t.Errorf("%d processes started, want 2: nothing is cached through a symlink", n)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("wrote %d files through the symlink", len(entries))
	}
}

// TestDescribeHostilePlugin: a plugin whose description the host cannot
// turn into tools fails Describe with invalid_input naming the field, is
// stopped, and nothing is cached.
func TestDescribeHostilePlugin(t *testing.T) {
	op := func(fields string) string {
		return `{"name":"x","version":"1","operations":[` + fields + `]}`
	}
	huge := strings.Repeat("a", pluginapi.MaxTextLength+1)
	tests := []struct {
		name, description, field string
	}{
		{"path in a name", op(`{"name":"../../x"}`), "operations.name"},
		{"upper case name", op(`{"name":"Echo"}`), "operations.name"},
		{"empty name", op(`{"name":""}`), "operations.name"},
		{"duplicate", op(`{"name":"echo"},{"name":"echo"}`), "operations.echo.name"},
		{"side effects", op(`{"name":"echo","sideEffects":"network"}`), "operations.echo.sideEffects"},
		{"failure code", op(`{"name":"echo","failureCodes":["boom"]}`), "operations.echo.failureCodes"},
		{"schema not an object", op(`{"name":"echo","inputSchema":[1]}`), "operations.echo.inputSchema"},
		{"schema not JSON Schema", op(`{"name":"echo","inputSchema":{"type":7}}`), "operations.echo.inputSchema"},
		{"remote reference", op(`{"name":"echo","inputSchema":{"$ref":"http://example.com/s.json"}}`), "operations.echo.inputSchema"},
		{"long description", op(`{"name":"echo","description":"` + huge + `"}`), "operations.echo.description"},
		{"too many", op(strings.TrimSuffix(strings.Repeat(`{"name":"a"},`, pluginapi.MaxOperations+1), ",")), "operations"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newDescribeFixture(t)
			file := filepath.Join(t.TempDir(), "description.json")
			write(t, file, []byte(tt.description))
			t.Setenv("TESTAGENT_DESCRIBE", file)
			_, err := f.describe(`{}`)
			if failure.CodeOf(err) != failure.InvalidInput || fieldOf(err) != tt.field {
				t.Fatalf("Describe error = %v (field %q), want invalid_input on %s", err, fieldOf(err), tt.field)
			}
			if !strings.Contains(err.Error(), f.launch.Path) {
				t.Errorf("error does not name the plugin: %v", err)
			}
			if files := f.cacheFiles(); len(files) != 0 {
				t.Errorf("cached %v", files)
			}
		})
	}
}

// TestDescribeBuiltin: a built-in plugin is described in-process, without
// starting anything; one the program does not carry is a clear error.
func TestDescribeBuiltin(t *testing.T) {
	var described int
	agent := func(hclog.Logger) pluginapi.Agent { described++; return fakeAgent{} }
	m := plugins.NewManager(nil, plugins.WithBuiltins(plugins.Builtins{"fake": agent}), plugins.WithDescribeCache(t.TempDir()))
	defer m.Close()
	launch, err := plugins.Builtin("fake")
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		d, err := m.Describe(context.Background(), launch, json.RawMessage(`{}`))
		if err != nil || opNames(d) != "one" {
			t.Fatalf("Describe = %+v, %v", d, err)
		}
	}
	if described != 1 {
		t.Errorf("the built-in agent was asked %d times, want once (then the cache)", described)
	}
	if !m.HasBuiltin("fake") || m.HasBuiltin("semantic") {
		t.Errorf("HasBuiltin is wrong")
	}
	missing, _ := plugins.Builtin("semantic")
	if _, err := m.Describe(context.Background(), missing, nil); failure.CodeOf(err) != failure.Precondition {
		t.Errorf("Describe of a built-in this program lacks: %v, want precondition_failed", err)
	}
}

type fakeAgent struct{ pluginapi.Agent }

func (fakeAgent) Describe(context.Context) (*pluginapi.Description, error) {
	return &pluginapi.Description{Name: "fake", Operations: []pluginapi.Operation{{Name: "one"}}}, nil
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// fieldOf returns the field of the first failure in err's chain that
// names one.
func fieldOf(err error) string {
	for ; err != nil; err = errors.Unwrap(err) {
		if fe, ok := err.(*failure.Error); ok && fe.Field != "" {
			return fe.Field
		}
	}
	return ""
}

// TestDescribeFailures: a plugin that cannot be described is a clear
// error of the right class, and leaves nothing running or cached.
func TestDescribeFailures(t *testing.T) {
	tests := []struct {
		name string
		path string
		want failure.Code
	}{
		{"missing executable", filepath.Join(t.TempDir(), "no-such-plugin"), failure.Precondition},
		{"not a plugin", "true", failure.Internal}, // exits at once, without a handshake
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newDescribeFixture(t)
			f.launch.Path = tt.path
			_, err := f.describe(`{}`)
			if failure.CodeOf(err) != tt.want || !strings.Contains(err.Error(), tt.path) {
				t.Fatalf("Describe error = %v (%s), want %s naming %s", err, failure.CodeOf(err), tt.want, tt.path)
			}
			if files := f.cacheFiles(); len(files) != 0 {
				t.Errorf("cached %v", files)
			}
		})
	}
}
