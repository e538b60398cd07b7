package plugins

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/langhost/langhost/internal/atomicfile"
	"github.com/langhost/langhost/internal/privfile"
	"github.com/langhost/langhost/internal/safefile"
	"github.com/langhost/langhost/plugins/pluginapi"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Builtins are the agents compiled into the running binary, by plugin
// name: the binary serves each as `<exe> plugin serve <name>` (see
// Builtin), and the manager asks them in-process what they serve, so that
// listing tools never starts a process for them. The host knows them only
// through this table, which the program's main package fills.
type Builtins map[string]func(hclog.Logger) pluginapi.Agent

// WithBuiltins gives the manager the agents compiled into the binary.
func WithBuiltins(b Builtins) Option {
	return func(c *config) { c.builtins = b }
}

// WithDescribeCache sets the directory where descriptions are cached;
// "" turns the cache off. The default is langhost/describe in the user's
// cache directory.
func WithDescribeCache(dir string) Option {
	return func(c *config) { c.describeDir = dir }
}

// DefaultDescribeCache is the default directory of the describe cache, ""
// when the user has no cache directory.
func DefaultDescribeCache() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "langhost", "describe")
}

// HasBuiltin reports whether the agent of the built-in plugin name is
// compiled into this program.
func (m *Manager) HasBuiltin(name string) bool {
	_, ok := m.cfg.builtins[name]
	return ok
}

// describeTimeout bounds asking a plugin process what it serves, after
// its handshake (which the start timeout bounds).
const describeTimeout = 30 * time.Second

// Describe returns what the plugin of launch serves for a language whose
// `semantic:` block is config: from the cache when the plugin executable
// (path, size, modification time), its arguments and config are unchanged;
// else from the built-in agent in-process, or by starting the plugin
// process, asking it and stopping it. A plugin process's description is
// validated (pluginapi.Description.Validate) before it is cached or
// returned.
//
// A built-in agent is described once per host and cached once per
// executable, whatever the language: it is not told the language's config,
// and its description is compiled in. It is checked with ValidateShape
// only: decoding its ~60 schemas costs more than the rest of a first
// `tools/list`, and TestBuiltinDescriptionsAreValid holds every built-in
// description to Validate.
func (m *Manager) Describe(ctx context.Context, launch Launch, config json.RawMessage) (*pluginapi.Description, error) {
	var agent func(hclog.Logger) pluginapi.Agent
	if launch.Builtin != "" {
		if agent = m.cfg.builtins[launch.Builtin]; agent == nil {
			return nil, failure.New(failure.Precondition, "built-in plugin %q is not part of this program", launch.Builtin)
		}
		if d, ok := m.described.builtin(launch.Builtin); ok {
			return d, nil
		}
		config = nil // not part of the description
	}
	path, err := exec.LookPath(launch.Path)
	if err != nil {
		return nil, &failure.Error{Code: failure.Precondition, Field: "launch.path",
			Message: "plugin " + launch.Name + " executable " + launch.Path + " not found", Err: err}
	}
	key, err := describeKey(path, launch, config)
	if err != nil {
		return nil, failure.Wrap(failure.Precondition, err, "plugin %s", launch.Name)
	}
	logger := m.logger.Named(launch.Name)
	if d, body := m.loadDescription(key, logger); d != nil {
		if agent != nil {
			m.described.add(launch.Builtin, body, d)
		}
		return d, nil
	}
	var d *pluginapi.Description
	if agent != nil {
		d, err = agent(logger).Describe(ctx)
	} else {
		d, err = m.describeProcess(ctx, launch, path)
	}
	if err != nil {
		return nil, failure.Wrap(failure.CodeOf(err), err, "describe plugin %s (%s)", launch.Name, path)
	}
	if agent != nil {
		err = d.ValidateShape()
	} else {
		err = d.Validate()
	}
	if err != nil {
		return nil, failure.Wrap(failure.CodeOf(err), err, "plugin %s (%s)", launch.Name, path)
	}
	body, err := json.Marshal(d)
	if err != nil {
		return nil, failure.Wrap(failure.Internal, err, "plugin %s (%s)", launch.Name, path)
	}
	m.described.add(launch.Builtin, body, d)
	m.storeDescription(key, path, body, logger)
	return d, nil
}

// describeProcess starts the plugin, asks for its description and stops
// it again: it has no workspace yet.
func (m *Manager) describeProcess(ctx context.Context, launch Launch, path string) (*pluginapi.Description, error) {
	ctx, cancel := context.WithTimeout(ctx, describeTimeout)
	defer cancel()
	defer context.AfterFunc(m.ctx, cancel)()
	inst, err := m.launch(launch, path)
	if err != nil {
		return nil, err
	}
	d, err := inst.agent.Describe(ctx)
	if err != nil {
		return nil, inst.startFailed("describe", err)
	}
	// The description is all we wanted: a failing Shutdown changes nothing.
	if err := inst.stop(m.cfg.shutdownTimeout); err != nil {
		m.logger.Debug("stopping a plugin after describe", "plugin", launch.Name, "error", err)
	}
	return d, nil
}

// describeFormat changes whenever cached entries must not be read any
// more (a new Description field, a fix in validation).
const describeFormat = 1

// describeHeader is the first line of a cache file; the description
// follows it as JSON.
type describeHeader struct {
	Format int    `json:"format"`
	Key    string `json:"key"`
	Plugin string `json:"plugin"` // the executable, for people looking at the cache
	// Sum is the SHA-256 of the rest of the file, which catches a file
	// damaged in a way JSON still decodes.
	Sum string `json:"sum"`
}

// describeKey names a plugin's description: its executable by path, size
// and modification time (a rebuilt plugin has another), how it is started
// and the language's config.
func describeKey(path string, launch Launch, config json.RawMessage) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	if real, err = filepath.Abs(real); err != nil {
		return "", err
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "langhost-describe\x00%d\x00exe\x00%s\x00%d\x00%d\x00builtin\x00%s\x00",
		describeFormat, real, st.Size(), st.ModTime().UnixNano(), launch.Builtin)
	for _, list := range [][]string{launch.Args, launch.Env} {
		fmt.Fprintf(h, "%d\x00%s\x00", len(list), strings.Join(list, "\x00"))
	}
	fmt.Fprintf(h, "config\x00%s", config)
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}

func (m *Manager) describePath(key string) string {
	return filepath.Join(m.cfg.describeDir, key+".json")
}

// loadDescription returns the cached description under key and its JSON,
// or nil. The cache is the user's, but any file in it may be stale,
// truncated or written by something else: one that is not a regular file,
// is too large, does not decode, names another key or fails validation is
// ignored (and replaced by the next store).
func (m *Manager) loadDescription(key string, logger hclog.Logger) (*pluginapi.Description, []byte) {
	if m.cfg.describeDir == "" {
		return nil, nil
	}
	// A cache directory that is not the user's own could hold anything.
	if err := privfile.Dir(m.cfg.describeDir); err != nil {
		logger.Debug("not using the describe cache", "error", err)
		return nil, nil
	}
	path := m.describePath(key)
	var body []byte
	d, err := readDescription(path, key, func(sum string, b []byte) (*pluginapi.Description, error) {
		body = b
		return m.described.decoded(sum, b)
	})
	if err != nil {
		if !os.IsNotExist(err) {
			logger.Debug("ignoring the cached description", "file", path, "error", err)
		}
		return nil, nil
	}
	return d, body
}

// readDescription reads the cache file path of key; decoded, if not nil,
// returns what a body of the same checksum decoded to (see described.go).
func readDescription(path, key string, decoded func(sum string, body []byte) (*pluginapi.Description, error)) (*pluginapi.Description, error) {
	// The cache writes regular files only: a symlink is not ours.
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("a symlink")
	}
	data, err := safefile.ReadRegular(path, pluginapi.MaxDescriptionSize)
	if err != nil {
		return nil, err
	}
	if decoded == nil {
		return decodeDescription(data, key)
	}
	body, sum, err := checkEntry(data, key)
	if err != nil {
		return nil, err
	}
	return decoded(sum, body)
}

// decodeDescription decodes and checks one cache file's content.
func decodeDescription(data []byte, key string) (*pluginapi.Description, error) {
	body, _, err := checkEntry(data, key)
	if err != nil {
		return nil, err
	}
	return decodeBody(body)
}

// checkEntry checks one cache file's header and returns its body and the
// body's checksum.
func checkEntry(data []byte, key string) (body []byte, sum string, err error) {
	if len(data) > pluginapi.MaxDescriptionSize {
		return nil, "", fmt.Errorf("more than %d bytes", pluginapi.MaxDescriptionSize)
	}
	line, body, ok := bytes.Cut(data, []byte("\n"))
	if !ok {
		return nil, "", fmt.Errorf("no header line")
	}
	var h describeHeader
	if err := strictUnmarshal(line, &h); err != nil {
		return nil, "", fmt.Errorf("header: %w", err)
	}
	switch {
	case h.Format != describeFormat:
		return nil, "", fmt.Errorf("format %d, want %d", h.Format, describeFormat)
	case h.Key != key:
		return nil, "", fmt.Errorf("entry of key %q, want %q", h.Key, key)
	case h.Sum != checksum(body):
		return nil, "", fmt.Errorf("checksum mismatch")
	}
	return body, h.Sum, nil
}

// decodeBody decodes a cache file's body, which checkEntry checked.
func decodeBody(body []byte) (*pluginapi.Description, error) {
	// The checksum says the body is what this cache wrote after Validate,
	// so a plain Unmarshal will do: a strict Decoder costs half as much
	// again on the ~90 KB of a description, for every language, on every
	// CLI start.
	var d pluginapi.Description
	if err := json.Unmarshal(body, &d); err != nil {
		return nil, err
	}
	// It passed Validate before it was stored; decoding the schemas again
	// would cost more than the rest of a CLI start.
	if err := d.ValidateShape(); err != nil {
		return nil, err
	}
	return &d, nil
}

// strictUnmarshal decodes exactly one JSON value with no unknown fields.
func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("data after the JSON value")
	}
	return nil
}

func checksum(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// staleDescription is how long a cache file may go unwritten before a
// store removes it: plugins are rebuilt, and `go run` builds a new
// langhost executable each time.
const staleDescription = 30 * 24 * time.Hour

// storeDescription caches body, a validated description as JSON, under
// key. Failing to cache is logged, never an error: the next call describes
// the plugin again.
func (m *Manager) storeDescription(key, plugin string, body []byte, logger hclog.Logger) {
	dir := m.cfg.describeDir
	if dir == "" {
		return
	}
	header, err := json.Marshal(describeHeader{Format: describeFormat, Key: key, Plugin: plugin, Sum: checksum(body)})
	data := slices.Concat(header, []byte("\n"), body)
	if err == nil {
		if err = privfile.Dir(dir); err == nil {
			err = atomicfile.WriteCache(m.describePath(key), data, 0o600)
		}
	}
	if err != nil {
		logger.Warn("cannot cache the plugin's description", "dir", dir, "error", err)
		return
	}
	pruneDescriptions(dir, time.Now().Add(-staleDescription))
}

// pruneDescriptions removes the files in dir last written before cutoff.
func pruneDescriptions(dir string, cutoff time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.ModTime().Before(cutoff) {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
