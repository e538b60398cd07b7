package lsp

import (
	"strings"
	"testing"
	"time"
)

func TestServerExitDetected(t *testing.T) {
	s, err := Start([]string{"sh", "-c", "exit 4"}, t.TempDir(), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Exited():
	case <-time.After(5 * time.Second):
		t.Fatal("exit not detected")
	}
	if err := s.ExitError(); err == nil || !strings.Contains(err.Error(), "exit status 4") {
		t.Errorf("ExitError = %v", err)
	}
	<-s.Done()
}
