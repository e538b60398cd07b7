package mcpserver

import (
	"context"
	"testing"
	"time"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// TestCallLimitWaitCanceled: a call waiting for a slot ends when its
// context does, as canceled, and takes no slot with it.
func TestCallLimitWaitCanceled(t *testing.T) {
	l := newCallLimit(1, time.Hour)
	release, err := l.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := l.acquire(ctx)
		errc <- err
	}()
	cancel()
	if err := <-errc; failure.CodeOf(err) != failure.Canceled {
		t.Errorf("waiting call = %v, want canceled", err)
	}
	release()
	if release, err = l.acquire(context.Background()); err != nil {
		t.Fatalf("the slot was not freed: %v", err)
	}
	release()
}

// TestCallLimitQueueBound: beyond maxWaitingCalls waiting calls, one more
// fails at once as busy.
func TestCallLimitQueueBound(t *testing.T) {
	l := newCallLimit(1, time.Hour)
	release, _ := l.acquire(context.Background())
	defer release()
	l.waiting.Store(maxWaitingCalls)
	_, err := l.acquire(context.Background())
	if failure.CodeOf(err) != failure.Timeout {
		t.Errorf("err = %v, want a busy timeout", err)
	}
}
