// Command testplugin serves testagent.Agent as a go-plugin process. With
// the single argument "child" it is instead the agent's stand-in language
// server and blocks until killed. When TESTAGENT_MARKER names a file, each
// plugin process appends a line to it as it starts, so that a test can
// count the processes started.
package main

import (
	"fmt"
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
	if marker := os.Getenv("TESTAGENT_MARKER"); marker != "" {
		f, err := os.OpenFile(marker, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			panic(err)
		}
		fmt.Fprintf(f, "started %d\n", os.Getpid())
		f.Close()
	}
	logger := pluginapi.NewLogger("testagent")
	pluginapi.Serve(testagent.New(logger), logger)
}
