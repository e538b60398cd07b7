// Command testplugin serves testagent.Agent as a go-plugin process. With
// the single argument "child" it is instead the agent's stand-in language
// server and blocks until killed.
package main

import (
	"os"
	"time"

	"github.com/langhost/langhost/plugins/pluginapi"
	"github.com/langhost/langhost/plugins/pluginapi/internal/testagent"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == testagent.ChildArg {
		for {
			time.Sleep(time.Hour)
		}
	}
	logger := pluginapi.NewLogger("testagent")
	pluginapi.Serve(testagent.New(logger), logger)
}
