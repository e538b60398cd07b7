//go:build !unix

package plugins

import "os/exec"

// Without process groups the manager relies on go-plugin's Kill and on
// plugins stopping their language servers on Shutdown.
func setProcessGroup(*exec.Cmd) {}

func killProcessGroup(int) {}
