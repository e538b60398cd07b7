//go:build !unix

package config

import "testing"

func unixHostileConfigCases(*testing.T) []hostileConfigCase { return nil }
