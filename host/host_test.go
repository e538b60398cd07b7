package host

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/languages"
)

// TestEmbeddedSpecsNamedByID guards NamedByID: NewForLanguages finds a
// shipped spec by its file name.
func TestEmbeddedSpecsNamedByID(t *testing.T) {
	names, err := fs.Glob(languages.FS, "*.yaml")
	if err != nil || len(names) == 0 {
		t.Fatalf("no embedded specs: %v", err)
	}
	for _, name := range names {
		data, _ := fs.ReadFile(languages.FS, name)
		f, err := spec.Parse(name, data)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if want := strings.TrimSuffix(name, ".yaml"); f.Language.ID != want {
			t.Errorf("%s defines language %q; embedded specs must be named <language id>.yaml", name, f.Language.ID)
		}
	}
}
