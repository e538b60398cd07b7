//go:build !unix || solaris || aix

package daemon

import (
	"context"
	"errors"
	"time"
)

// supported says daemons work on this platform; here `langhost run` runs
// every call in its own process.
const supported = false

var errUnsupported = errors.New("the langhost daemon is not supported on this platform")

func privateDir(string) error { return errUnsupported }

func lock(context.Context, string, time.Duration) (func(), error) { return nil, errUnsupported }

func spawn(Command, string) (<-chan error, error) { return nil, errUnsupported }

func alive(int) bool { return false }
