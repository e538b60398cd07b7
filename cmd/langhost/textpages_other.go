//go:build !linux

package main

import "context"

// trimTextPages is Linux only (see textpages_linux.go).
func trimTextPages(context.Context) {}
