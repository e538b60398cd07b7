//go:build !linux

package secretenv

// Hide does nothing where no /proc/<pid>/environ lets another process
// read the environment; internal/childenv still keeps secrets from
// children.
func Hide(secret func(name, value string) bool) (int, error) { return 0, nil }
