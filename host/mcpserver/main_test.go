package mcpserver_test

import (
	"testing"

	"github.com/langhost/langhost/plugins/builtin/builtintest"
)

func TestMain(m *testing.M) { builtintest.Main(m) }
