package lsp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/langhost/langhost/internal/procgroup"
)

// Server is a language server child process and the client talking to it.
// The process runs in its own process group so that stopping it also stops
// any helpers it spawned, and it dies with the process that started it.
type Server struct {
	*Client
	cmd   *exec.Cmd
	group *procgroup.Group

	exited  chan struct{}
	exitErr error
	once    sync.Once
}

// Start launches argv in dir and connects a client to its stdio. Its stderr
// goes to opts.Logger at debug level.
func Start(argv []string, dir string, env []string, opts Options) (*Server, error) {
	if len(argv) == 0 {
		return nil, errors.New("no language server command")
	}
	log := opts.Logger
	if log == nil {
		log = hclog.NewNullLogger()
		opts.Logger = log
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	group := procgroup.New(cmd, syscall.SIGKILL)
	// Helpers that inherit stderr must not keep Wait blocked forever.
	cmd.WaitDelay = 2 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderrR, stderrW := io.Pipe()
	cmd.Stderr = stderrW
	if err := group.Start(); err != nil {
		return nil, fmt.Errorf("starting language server %s: %w", argv[0], err)
	}
	go logLines(log.Named("stderr"), stderrR)

	s := &Server{cmd: cmd, group: group, exited: make(chan struct{})}
	s.Client = NewClient(stdout, stdin, opts)
	go func() {
		err := cmd.Wait()
		stderrW.Close()
		// Kill any helpers left in the group.
		_ = group.KillGroup()
		s.exitErr = err
		if err == nil {
			s.exitErr = errors.New("exit status 0")
		}
		close(s.exited)
	}()
	return s, nil
}

func logLines(log hclog.Logger, r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		log.Debug(sc.Text())
	}
}

// PID is the server's process id.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// Exited is closed when the process has exited.
func (s *Server) Exited() <-chan struct{} { return s.exited }

// ExitError describes how the process ended, once Exited is closed.
func (s *Server) ExitError() error {
	select {
	case <-s.exited:
		return s.exitErr
	default:
		return nil
	}
}

// Kill kills the server's process group at once, with any helper that
// left the group.
func (s *Server) Kill() {
	_ = s.group.Kill()
}

// Close asks the server to shut down and exit, waiting until ctx ends or a
// few seconds pass, then kills its process group.
func (s *Server) Close(ctx context.Context) error {
	var err error
	s.once.Do(func() {
		select {
		case <-s.exited:
		default:
			sctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			// Only a server that answered shutdown gets time to exit; one
			// whose connection broke (malformed output) is killed at once.
			if cerr := s.Call(sctx, "shutdown", nil, nil); cerr == nil {
				_ = s.Notify(sctx, "exit", nil)
				select {
				case <-s.exited:
				case <-sctx.Done():
				}
			}
			cancel()
		}
		s.Kill()
		_ = s.Client.Close()
		select {
		case <-s.exited:
		case <-time.After(3 * time.Second):
			err = fmt.Errorf("language server %d did not exit after SIGKILL", s.PID())
		}
	})
	return err
}
