package mcpserver

import (
	"context"
	"slices"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/host/detect"
)

// TestPrimary checks which served languages are warmed: those the
// workspace is a project of, else every detected one.
func TestPrimary(t *testing.T) {
	tests := []struct {
		name     string
		detected []detect.Language
		served   []string
		want     []string
	}{
		{"go module with C and JavaScript fixtures",
			[]detect.Language{{ID: "c"}, {ID: "go", Project: true}, {ID: "javascript"}},
			[]string{"c", "go", "javascript"}, []string{"go"}},
		{"monorepo",
			[]detect.Language{{ID: "go", Project: true}, {ID: "python"}, {ID: "typescript", Project: true}},
			[]string{"go", "python", "typescript"}, []string{"go", "typescript"}},
		{"no project file",
			[]detect.Language{{ID: "python"}, {ID: "c"}},
			[]string{"c", "python"}, []string{"c", "python"}},
		{"served but not detected",
			[]detect.Language{{ID: "go", Project: true}},
			[]string{"go", "rust"}, []string{"go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := &Server{ctx: context.Background(), log: hclog.NewNullLogger()}
			g := &generation{server: &server{detected: tt.detected}}
			if got := srv.primary(g, slices.Clone(tt.served)); !slices.Equal(got, tt.want) {
				t.Errorf("warmed %v, want %v", got, tt.want)
			}
		})
	}
}
