//go:build !unix

package plugins_test

func unixHostileCacheCases() []hostileCacheCase { return nil }
