package agent_test

import (
	"context"
	"testing"

	"github.com/langhost/langhost/host/agent"
)

// BenchmarkLoopTwoSteps measures the executor's own cost per run of two
// model turns over HTTP (the scripted server, OpenAI wire format) and one
// read-only tool call through the registry.
func BenchmarkLoopTwoSteps(b *testing.B) {
	h := newHost(b, goFixture)
	tools := goTools(b, h)
	const script = `
turns:
  - reply: {tool_calls: [{name: workspace_read_file, arguments: {path: calc.go}}]}
  - reply: {text: done}
`
	for b.Loop() {
		p, _ := scripted(b, script)
		e, _ := executor(b, h, p)
		out, err := e.Loop(context.Background(), agent.Task{Messages: userTask("x"), Tools: tools})
		if err != nil || out.StopReason != agent.StopFinalAnswer {
			b.Fatalf("%+v, %v", out, err)
		}
	}
}
