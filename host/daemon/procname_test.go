package daemon

import "testing"

func TestProcessName(t *testing.T) {
	tests := []struct{ command, want string }{
		{"/root/go/bin/gopls", "gopls"},
		{"/usr/bin/node /work/.tools/node_modules/.bin/pyright-langserver --stdio", "pyright-langserver"},
		{"node /x/node_modules/typescript-language-server/lib/cli.mjs --stdio", "typescript-language-server"},
		{"node /x/node_modules/@elm-tooling/elm-language-server/out/node/index.js --stdio", "@elm-tooling/elm-language-server"},
		{"/usr/bin/node --max-old-space-size=3072 /x/node_modules/typescript/lib/tsserver.js --serverMode partialSemantic", "tsserver"},
		{"/tmp/langhost-mcp-test-1/langhost plugin serve semantic", "langhost plugin serve semantic"},
		{"/bin/sh -c trap '' INT HUP TERM\nlive=' ' ... langhost-reaper", "langhost reaper"},
		{"python3.12 -m pylsp", "pylsp"},
		{"dotnet /opt/roslyn/Microsoft.CodeAnalysis.LanguageServer.dll --stdio", "Microsoft.CodeAnalysis.LanguageServer"},
		{"clangd-14 --background-index", "clangd-14"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := processName(tt.command); got != tt.want {
			t.Errorf("processName(%q) = %q, want %q", tt.command, got, tt.want)
		}
	}
}
