// Package daemon keeps semantic tools warm between CLI calls: `langhost
// serve` runs one daemon per workspace and configuration that owns the
// language servers, and `langhost run` sends semantic calls to it as JSON
// over HTTP on a unix socket only its owner can reach.
//
// A daemon is found by its Key (the socket name: workspace root and
// effective configuration) and trusted by its Fingerprint (the langhost
// executable and the spec files it loaded). Every call carries the
// caller's fingerprint; a daemon with another one refuses the call, and the
// caller replaces it. So a rebuilt binary or an edited spec never talks to
// an old daemon, and no outdated daemon lingers holding a language server.
package daemon

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/config"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/internal/workspace"
)

// Identity says which daemon may serve a caller.
type Identity struct {
	Workspace   string // real path of the workspace root
	Key         string // names the socket: workspace root and effective configuration
	Fingerprint string // the executable, the spec files, PathHash and Key
	// PathHash identifies the PATH the daemon looks language servers up
	// on: a daemon started before gopls was installed (and PATH changed)
	// would keep answering "gopls is not installed", so another PATH
	// replaces it, and the caller says so.
	PathHash string
}

// ignoredSettings do not change what a daemon answers: output format and
// logging are the caller's, the daemon settings are read when it starts.
var ignoredSettings = []string{"workspace", "format", "log.level", "daemon.enabled", "daemon.idle_timeout"}

// NewIdentity computes the identity of the daemon for cfg and ws.
func NewIdentity(cfg *config.Config, ws *workspace.Root) (Identity, error) {
	id := Identity{Workspace: ws.Dir()}
	values := cfg.Values()
	langs := make([]string, len(cfg.Languages))
	for i, dir := range cfg.Languages {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return Identity{}, fmt.Errorf("language directory %s: %w", dir, err)
		}
		langs[i] = abs
	}
	values["languages"] = langs // relative directories mean different specs from elsewhere
	h := sha256.New()
	// Trust decides which workspace settings and specs load.
	fmt.Fprintf(h, "workspace\x00%s\x00trusted\x00%t\x00", id.Workspace, cfg.Trust.Trusted)
	for _, k := range config.SortedKeys() {
		if slices.Contains(ignoredSettings, k) {
			continue
		}
		v, err := json.Marshal(values[k])
		if err != nil {
			return Identity{}, fmt.Errorf("setting %s: %w", k, err)
		}
		fmt.Fprintf(h, "%s\x00%s\x00", k, v)
	}
	// 128 bits name the socket: enough to never collide, short enough for
	// the 104-byte limit of socket paths.
	id.Key = hex.EncodeToString(h.Sum(nil)[:16])

	sum := sha256.Sum256([]byte(os.Getenv("PATH")))
	id.PathHash = hex.EncodeToString(sum[:8])
	h = sha256.New()
	fmt.Fprintf(h, "key\x00%s\x00version\x00%s\x00path\x00%s\x00", id.Key, host.Version, id.PathHash)
	if err := hashExecutable(h); err != nil {
		return Identity{}, err
	}
	sources, err := host.Sources(cfg, ws)
	if err != nil {
		return Identity{}, err
	}
	for _, src := range sources {
		hashSource(h, src)
	}
	id.Fingerprint = hex.EncodeToString(h.Sum(nil)[:16])
	return id, nil
}

// hashExecutable adds the running binary's identity: a rebuilt langhost
// has another size or modification time.
func hashExecutable(w interface{ Write([]byte) (int, error) }) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("locate the langhost executable: %w", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	st, err := os.Stat(exe)
	if err != nil {
		return fmt.Errorf("langhost executable: %w", err)
	}
	fmt.Fprintf(w, "exe\x00%s\x00%d\x00%d\x00", exe, st.Size(), st.ModTime().UnixNano())
	return nil
}

// hashSource adds the name, size, mode and modification time of every file
// of a spec source. Metadata, not content: it is cheap on every call and
// never opens a file (a named pipe planted in a spec directory would block
// a read); any edit changes the size or the modification time. Files the
// loader skips are hashed too, which at worst replaces a daemon needlessly.
// The embedded specs have no modification time; the executable covers them.
func hashSource(w interface{ Write([]byte) (int, error) }, src spec.Source) {
	fmt.Fprintf(w, "source\x00%s\x00%s\x00", src.Name, src.Label)
	if src.FS == nil {
		return
	}
	names := src.Files
	if names == nil {
		entries, err := fs.ReadDir(src.FS, ".")
		if err != nil {
			fmt.Fprintf(w, "error\x00%v\x00", err)
			return
		}
		for _, e := range entries {
			names = append(names, e.Name())
		}
	}
	for _, name := range names {
		st, err := fs.Stat(src.FS, name)
		if err != nil {
			fmt.Fprintf(w, "file\x00%s\x00error\x00%v\x00", name, err)
			continue
		}
		fmt.Fprintf(w, "file\x00%s\x00%d\x00%v\x00%d\x00", name, st.Size(), st.Mode(), st.ModTime().UnixNano())
	}
}
