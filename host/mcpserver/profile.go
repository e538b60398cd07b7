package mcpserver

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/toolname"
	"github.com/langhost/langhost/internal/textdist"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// profileFilter returns the test of opts.Profile: which tools it keeps.
func profileFilter(opts Options) (func(*registry.Tool) bool, error) {
	switch opts.Profile {
	case "", ProfileAll:
		return func(*registry.Tool) bool { return true }, nil
	case ProfileReadOnly:
		return func(t *registry.Tool) bool { return t.ReadOnly }, nil
	case ProfileEdit:
		return func(t *registry.Tool) bool { return t.ReadOnly || editTool(t) }, nil
	}
	entries, ok := opts.Profiles[opts.Profile]
	if !ok {
		names := []string{ProfileReadOnly, ProfileEdit, ProfileAll}
		for name := range opts.Profiles {
			names = append(names, name)
		}
		slices.Sort(names)
		msg := fmt.Sprintf("unknown profile %q (profiles: %s)", opts.Profile, strings.Join(names, ", "))
		if c := textdist.Ranked(opts.Profile, names, 3); len(c) > 0 {
			msg += fmt.Sprintf("; did you mean %s?", strings.Join(c, ", "))
		}
		return nil, &failure.Error{Code: failure.NotFound, Field: "profile", Message: msg}
	}
	var globs, categories []string
	for _, e := range entries {
		if c, ok := strings.CutPrefix(e, "category:"); ok {
			categories = append(categories, c)
			continue
		}
		if _, err := path.Match(e, ""); err != nil {
			return nil, &failure.Error{Code: failure.InvalidInput, Field: "profile",
				Message: fmt.Sprintf("profile %q: bad glob %q", opts.Profile, e), Err: err}
		}
		globs = append(globs, e)
	}
	return func(t *registry.Tool) bool {
		return matchAny(globs, t.ID) || matchAny(globs, toolname.Name(t.ID)) || hasCategory(t, categories)
	}, nil
}

// editTool reports whether t is an edit tool of the edit profile: a
// semantic or built-in tool that changes workspace files (rename,
// code_actions, format, write_file, ...), not a CLI tool.
func editTool(t *registry.Tool) bool {
	return t.Kind != registry.KindCLI && t.SideEffects == "workspace"
}
