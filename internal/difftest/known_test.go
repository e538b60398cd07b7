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
