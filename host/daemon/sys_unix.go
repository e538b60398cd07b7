//go:build unix && !solaris && !aix

package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/langhost/langhost/internal/childenv"
	"github.com/langhost/langhost/internal/privfile"
	"github.com/langhost/langhost/internal/procgroup"
)

// supported says daemons work on this platform: they need unix sockets,
// flock and detached sessions.
const supported = true

var errUnsupported = errors.New("not supported on this platform")

// privateDir creates dir owned by and private to the user, or checks that
// it is: a directory (not a symlink to one) of this user, which nobody else
// may enter. Wider permissions of the user's own directory are narrowed.
func privateDir(dir string) error {
	if err := privfile.Dir(dir); err != nil {
		return fmt.Errorf("daemon directory: %w", err)
	}
	return nil
}

// lock takes the exclusive flock on path, waiting at most timeout. The
// lock is released when the process dies, so a killed caller never leaves
// it held.
func lock(ctx context.Context, path string, timeout time.Duration) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("daemon lock: %w", err)
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				_ = f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("daemon lock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-deadline.C:
			f.Close()
			return nil, fmt.Errorf("daemon lock %s: still held after %s", path, timeout)
		case <-tick.C:
		}
	}
}

// spawn starts the daemon detached from the caller, so that it outlives
// the CLI that started it and whatever started that CLI: in a session of
// its own (no terminal's Ctrl-C or hangup, no process-group kill of the
// CLI reaches it), with no parent-death signal, without the procgroup
// marks the CLI inherited (no langhost sweeping the tree of a tool that ran
// the CLI kills it; see procgroup.Detached), stdin from /dev/null, stdout
// and stderr to its log file. The channel reports its exit while the
// caller lives.
func spawn(start Command, logPath string) (<-chan error, error) {
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("daemon log: %w", err)
	}
	defer logf.Close()
	env := start.Env
	if env == nil {
		env = os.Environ()
	}
	// The daemon needs no provider key or token, only its own LANGHOST_*
	// settings (its identity is computed from them); what it starts is
	// scrubbed again by procgroup.
	env = childenv.Scrub(env, childenv.Langhost(env)...)
	cmd := exec.Command(start.Path, start.Args...)
	cmd.Dir, cmd.Env = start.Dir, procgroup.Detached(env)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start daemon: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	return exited, nil
}

// alive reports whether process pid exists and has not exited.
func alive(pid int) bool { return !procgroup.Exited(pid, 0) }
