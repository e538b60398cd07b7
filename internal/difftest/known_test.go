package difftest

import "testing"

// TestCSharpOutline holds the csharp-ls outline entry to what it explains:
// the File wrapper and short namespace names, and nothing else.
func TestCSharpOutline(t *testing.T) {
	raw := []string{"IAnimal.cs file@1:1", "IAnimal.cs/Core namespace@1:11", "IAnimal.cs/Core/IAnimal interface@4:18",
		"IAnimal.cs/Core/IAnimal/Name property@6:12", "IAnimal.cs/Core/IAnimal/Speak() method@8:12"}
	tests := []struct {
		name string
		got  []string
		want bool
	}{
		{"reshaped", []string{"Zoo.Core namespace@1:11", "Zoo.Core/IAnimal interface@4:18", "Zoo.Core/IAnimal/Name property@6:12", "Zoo.Core/IAnimal/Speak() method@8:12"}, true},
		{"member missing", []string{"Zoo.Core namespace@1:11", "Zoo.Core/IAnimal interface@4:18", "Zoo.Core/IAnimal/Name property@6:12"}, false},
		{"position moved", []string{"Zoo.Core namespace@1:11", "Zoo.Core/IAnimal interface@4:18", "Zoo.Core/IAnimal/Name property@6:12", "Zoo.Core/IAnimal/Speak() method@9:12"}, false},
		{"kind changed", []string{"Zoo.Core namespace@1:11", "Zoo.Core/IAnimal class@4:18", "Zoo.Core/IAnimal/Name property@6:12", "Zoo.Core/IAnimal/Speak() method@8:12"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Difference{Tool: "file_symbols", Raw: answerOf(raw), Got: answerOf(tt.got)}
			if got := csharpOutline(d); got != tt.want {
				t.Errorf("csharpOutline = %v, want %v", got, tt.want)
			}
			if got := known("go", d) != ""; got {
				t.Errorf("the csharp entry explains a go difference")
			}
		})
	}
}

// TestKnownTimeout: langhost's own request bound explains a timeout
// answer, and nothing else: not another failure, not a timeout the raw
// server had too, not one whose message does not name the bound.
func TestKnownTimeout(t *testing.T) {
	msg := "LSP request callHierarchy/incomingCalls: csharp-ls did not answer within 1m0s (requestTimeout): context deadline exceeded"
	tests := []struct {
		name string
		d    Difference
		want bool
	}{
		{"bounded", Difference{Tool: "find_callers", Raw: answerOf([]string{"a"}), Got: Answer{Failure: "timeout"}, Message: msg}, true},
		{"other failure", Difference{Tool: "find_callers", Raw: answerOf([]string{"a"}), Got: Answer{Failure: "internal"}, Message: msg}, false},
		{"raw failed too", Difference{Tool: "find_callers", Raw: Answer{Failure: "internal"}, Got: Answer{Failure: "timeout"}, Message: msg}, false},
		{"unnamed bound", Difference{Tool: "find_callers", Raw: answerOf([]string{"a"}), Got: Answer{Failure: "timeout"}, Message: "deadline"}, false},
		{"wrong answer", Difference{Tool: "find_references", Raw: answerOf([]string{"a"}), Got: answerOf([]string{"b"}), Message: msg}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := known("csharp", tt.d) != ""; got != tt.want {
				t.Errorf("known = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestWithParts: a partial type langhost lists once with its parts
// compares as the server's one entry per declaration.
func TestWithParts(t *testing.T) {
	data := []byte(`{"symbols":[{"name":"JToken","file":"Linq/JToken.cs","line":55,"column":35,"parts":[{"file":"Linq/JToken.Async.cs","line":37,"column":35}]},{"name":"Memo","file":"M.cs","line":3,"column":18}]}`)
	got, err := lhWithParts("symbols")(data)
	if err != nil {
		t.Fatal(err)
	}
	want := answerOf([]string{"Linq/JToken.cs:55:35", "Linq/JToken.Async.cs:37:35", "M.cs:3:18"})
	if !want.Same(got) {
		t.Errorf("got %s, want %s", got, want)
	}
}
