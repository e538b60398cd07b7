package procgroup

import (
	"bufio"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
)

// When this process is killed with SIGKILL, Pdeathsig stops each group's
// leader, but not the leader's children. The reaper stops them: it reads
// the marks of the running groups from a pipe, and when the pipe reaches
// end of file, which happens however this process ends, it kills every
// process that still carries one of them. Groups that ended normally were
// unregistered, so a host that exits cleanly leaves alone what finished
// tools deliberately detached.
//
// The reaper waits for most of its life and sweeps rarely, so it waits as
// /bin/sh (reaperScript: a millisecond to start, a megabyte or two of
// memory) and only when the pipe ends does it become a copy of this
// executable, which it holds open as file descriptor 3 from the start, to
// sweep with killMarked (reaperEnv=sweep; see init). Where there is no
// /bin/sh, the copy of this executable waits itself (reaperEnv=1): any
// binary that starts groups imports this package, so it can be either.
// reaperEnv=off (see Supervised) means no reaper is needed.

// reaperScript keeps the live marks (one "+MARK" or "-MARK" line each, with
// builtins only, so no process is forked per line) until end of file, then
// executes the sweep with the marks still live. Marks are MarkPrefix and
// base32 text, so word splitting of $live is safe.
const reaperScript = `trap '' INT HUP TERM
live=' '
while IFS= read -r l; do
	case $l in
	+*) live="$live${l#+} " ;;
	-*) m=${l#-}
		case $live in *" $m "*) live="${live%%" $m "*} ${live#*" $m "}" ;; esac ;;
	esac
done
[ "$live" = ' ' ] && exit 0
LANGHOST_REAPER=sweep exec /proc/self/fd/3 reaper $live`

const reaperSweep = "sweep"

func init() {
	switch os.Getenv(reaperEnv) {
	case reaperOn:
		runReaper()
		os.Exit(0)
	case reaperSweep:
		signal.Ignore(syscall.SIGINT, syscall.SIGHUP, syscall.SIGTERM)
		if len(os.Args) > 2 {
			killMarked(os.Args[2:]...)
		}
		os.Exit(0)
	}
}

// runReaper is the reaper's main.
func runReaper() {
	// A terminal's Ctrl-C or hang-up must not take the reaper down before
	// the host it watches.
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP, syscall.SIGTERM)
	live := map[string]bool{}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		line := sc.Text()
		if mark, ok := strings.CutPrefix(line, "+"); ok {
			live[mark] = true
		} else if mark, ok := strings.CutPrefix(line, "-"); ok {
			delete(live, mark)
		}
	}
	marks := make([]string, 0, len(live))
	for m := range live {
		marks = append(marks, m)
	}
	killMarked(marks...)
}

// reaper is the pipe to the reaper; like the reaper process it is
// process-wide.
var reaper struct {
	once   sync.Once
	mu     sync.Mutex
	w      *os.File      // nil when no reaper runs, or after Shutdown
	proc   *os.Process   // the reaper, while w is set
	exited chan struct{} // closed when the reaper has exited
	live   int           // groups watched and not yet done
}

const (
	// reaperWriteTimeout bounds a registration: a wedged reaper must not
	// hold up starting tools.
	reaperWriteTimeout = time.Second
	// reaperExitTimeout bounds Shutdown's wait: the reaper's sweep, which
	// waits up to killWaitTimeout for unreadable marks and as long for
	// what it killed, with room to spare.
	reaperExitTimeout = 2*killWaitTimeout + time.Second
)

func startReaper() {
	if os.Getenv(reaperEnv) == reaperOff {
		return
	}
	r, w, err := os.Pipe() // close-on-exec: only the reaper gets r
	if err != nil {
		return
	}
	defer r.Close()
	cmd, err := reaperCommand()
	if err != nil {
		w.Close()
		return
	}
	cmd.Stdin = r // stdout and stderr: /dev/null, never our pipes
	// Its own group: signals for the host's group do not reach it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	for _, f := range cmd.ExtraFiles {
		f.Close()
	}
	if err != nil {
		w.Close()
		return
	}
	exited := make(chan struct{})
	go func() { // reap it should it end before us
		_ = cmd.Wait()
		close(exited)
	}()
	reaper.w, reaper.proc, reaper.exited = w, cmd.Process, exited
}

// reaperCommand is the reaper to start: /bin/sh running reaperScript with
// this executable open as its file descriptor 3, or else this executable.
func reaperCommand() (*exec.Cmd, error) {
	// This very binary, even if the file was replaced or removed since it
	// started (a daemon outlives a reinstall).
	exe, err := os.Open("/proc/self/exe")
	if err != nil {
		return nil, err
	}
	if sh, err := exec.LookPath("/bin/sh"); err == nil {
		cmd := exec.Command(sh, "-c", reaperScript, "langhost-reaper")
		cmd.Env = os.Environ()
		cmd.ExtraFiles = []*os.File{exe}
		return cmd, nil
	}
	exe.Close()
	// Resolved in the forked child, /proc/self/exe is still ours.
	cmd := exec.Command("/proc/self/exe")
	cmd.Args = []string{os.Args[0], "reaper"} // for process listings only
	cmd.Env = append(os.Environ(), reaperEnv+"="+reaperOn)
	return cmd, nil
}

// prepareReaper starts the reaper on another goroutine. A Start or
// Shutdown meanwhile waits for it in reaper.once.
func prepareReaper() { go reaper.once.Do(startReaper) }

func shutdownReaper() {
	reaper.once.Do(func() {}) // none starts from now on
	reaper.mu.Lock()
	w, proc, exited, live := reaper.w, reaper.proc, reaper.exited, reaper.live
	reaper.w, reaper.proc = nil, nil
	reaper.mu.Unlock()
	if w == nil {
		return
	}
	if live == 0 {
		// Nothing for it to kill: stop it rather than wait until it has
		// started up (a copy of this executable) only to read end of
		// file, which a short command would otherwise pay on every run.
		_ = proc.Kill()
	}
	w.Close() // end of file: the reaper kills what is still watched and exits
	t := time.NewTimer(reaperExitTimeout)
	defer t.Stop()
	select {
	case <-exited:
	case <-t.C:
	}
}

func tellReaper(line string) {
	reaper.once.Do(startReaper)
	reaper.mu.Lock()
	defer reaper.mu.Unlock()
	if reaper.w == nil {
		return
	}
	_ = reaper.w.SetWriteDeadline(time.Now().Add(reaperWriteTimeout))
	_, _ = reaper.w.WriteString(line + "\n") // a short line: one atomic write
}

func watch(mark string) {
	tellReaper("+" + mark)
	reaper.mu.Lock()
	reaper.live++
	reaper.mu.Unlock()
}

func unwatch(mark string) {
	tellReaper("-" + mark)
	reaper.mu.Lock()
	reaper.live--
	reaper.mu.Unlock()
}
