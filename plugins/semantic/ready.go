package semantic

import (
	"context"
	"errors"
	"sync"
	"time"
)

// readyLimitFactor bounds a whole start-up at this many readyTimeouts.
// readyTimeout counts from the server's last sign of progress, so that a
// large solution still loading is not killed; a server that keeps
// reporting without ever becoming ready must still end.
const readyLimitFactor = 10

// errNoProgress is the cause of a start-up ended because the server showed
// no sign of progress for readyTimeout.
var errNoProgress = errors.New("no sign of progress")

// progressWatch ends a context once nothing was seen for quiet: last
// returns when the server last showed a sign of progress.
type progressWatch struct {
	mu     sync.Mutex
	timer  *time.Timer
	quiet  time.Duration
	last   func() time.Time
	cancel context.CancelCauseFunc
}

// watchProgress returns a context that is canceled with errNoProgress
// when last has not moved for quiet, and a function that releases it.
func watchProgress(parent context.Context, quiet time.Duration, last func() time.Time) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	w := &progressWatch{quiet: quiet, last: last, cancel: cancel}
	w.mu.Lock()
	w.timer = time.AfterFunc(quiet, w.check)
	w.mu.Unlock()
	return ctx, func() {
		w.mu.Lock()
		w.timer.Stop()
		w.mu.Unlock()
		cancel(context.Canceled)
	}
}

// check runs when the timer fires: the server either showed progress
// since, which re-arms the timer for the rest of quiet, or it did not.
func (w *progressWatch) check() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if idle := time.Since(w.last()); idle < w.quiet {
		w.timer.Reset(w.quiet - idle)
		return
	}
	w.cancel(errNoProgress)
}
