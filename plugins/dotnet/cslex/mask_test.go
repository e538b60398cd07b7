package cslex

import "testing"

func TestMask(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"line comment", "a // namespace X\nb", "a               \nb"},
		{"block comment", "a /* x\ny */ b", "a     \n     b"},
		{"string", `x = "namespace Y;";`, `x = "            ";`},
		{"escaped quote", `x = "a\"b"; c`, `x = "    "; c`},
		{"verbatim", `x = @"a""b\"; c`, `x = @"     "; c`},
		{"interpolated", `x = $"{a} b"; c`, `x = $"     "; c`},
		{"raw", `x = """a "b" c"""; d`, `x = """       """; d`},
		{"char", `c = '"'; d`, `c = ' '; d`},
		{"unterminated string stops at newline", "x = \"abc\nnamespace A;", "x = \"   \nnamespace A;"},
		{"code untouched", "namespace A.B { class C {} }", "namespace A.B { class C {} }"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(Mask([]byte(tt.in)))
			if got != tt.want {
				t.Errorf("Mask(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if len(got) != len(tt.in) {
				t.Errorf("length changed: %d -> %d", len(tt.in), len(got))
			}
		})
	}
}
