package transcript_test

import (
	"context"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/agent/transcript"
)

// FuzzParse: a transcript read back by `agent status` is a workspace
// file; whatever it holds, parsing returns events or an error naming a
// line, and Summarize folds whatever parsed.
func FuzzParse(f *testing.F) {
	f.Add([]byte("{\"seq\":1,\"type\":\"run_start\",\"run\":\"r\",\"pid\":1}\n{\"seq\":2,\"type\":\"run_end\"}\n"))
	f.Add([]byte("{\"seq\":1,\"type\":\"model_call\",\"usage\":{\"input_tokens\":-5}}\n{\"type\":\"mess"))
	f.Add([]byte("not json\n"))
	f.Add([]byte("{\"type\":\"role_change\",\"to\":\"\\u0000\"}\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		evs, err := transcript.Parse(context.Background(), "x.jsonl", strings.NewReader(string(data)))
		if err != nil {
			if !strings.Contains(err.Error(), "x.jsonl:") {
				t.Fatalf("error does not name the line: %v", err)
			}
			return
		}
		st := transcript.Summarize(".langhost/runs/x.jsonl", evs)
		if st.ToolCalls < 0 || st.Escalations < 0 {
			t.Fatalf("negative counts: %+v", st)
		}
	})
}
