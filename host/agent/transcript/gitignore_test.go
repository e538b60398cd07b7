package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/internal/workspace"
)

// Transcripts hold what the agent read: creating one makes
// .langhost/.gitignore ignore them.
func TestCreateIgnoresTranscripts(t *testing.T) {
	root := t.TempDir()
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	w, err := Create(ws, NewID(), nil)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	b, err := os.ReadFile(filepath.Join(root, ".langhost", ".gitignore"))
	if err != nil || !strings.Contains(string(b), "/runs/\n") {
		t.Errorf(".langhost/.gitignore = %q, %v; want /runs/ ignored", b, err)
	}
}
