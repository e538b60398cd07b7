//go:build !unix

package spec

import "testing"

func makeUnixHostileSpecFiles(*testing.T, string) map[string]string { return nil }
