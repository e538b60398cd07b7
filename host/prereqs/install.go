package prereqs

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	packageurl "github.com/package-url/packageurl-go"
)

// InstallCommand derives the command that installs the package a spec's
// package URL names, e.g. pkg:golang/golang.org/x/tools/gopls@v0.23.0 ->
// "go install golang.org/x/tools/gopls@v0.23.0". The error says why there
// is none: a type with no one installer (generic, maven), or a name or
// version with characters the type does not allow.
//
// Specs are untrusted, and a person pastes this command into a shell: so
// every part is checked against the characters its ecosystem allows,
// which leave no room for shell syntax ($, `, ;, |, &, quotes, spaces,
// globs, !) or an option (a leading -). A part that fails is never
// quoted into shape: the command is left out.
func InstallCommand(purl string) (string, error) {
	p, err := packageurl.FromString(purl)
	if err != nil {
		return "", fmt.Errorf("bad package URL %q: %w", purl, err)
	}
	if p.Type == packageurl.TypeGeneric && p.Name == "rustup" && strings.HasPrefix(p.Subpath, "component=") {
		// A component of a Rust toolchain rustup installs.
		if c := strings.TrimPrefix(p.Subpath, "component="); plainName().MatchString(c) {
			return "rustup component add " + c, nil
		}
		return "", fmt.Errorf("rustup component %q is not a valid name: not turned into a command", p.Subpath)
	}
	r, ok := installers()[p.Type]
	if !ok {
		return "", fmt.Errorf("%w for pkg:%s packages; install %s as its project documents", ErrNoInstaller, p.Type, p.Name)
	}
	name := p.Name
	if p.Namespace != "" && r.namespace {
		name = p.Namespace + "/" + p.Name
	}
	if r.subpath && p.Subpath != "" {
		name += "/" + p.Subpath
	}
	if !r.name.MatchString(name) {
		return "", fmt.Errorf("package name %q is not a valid pkg:%s name: not turned into a command", name, p.Type)
	}
	if p.Version != "" && !r.version.MatchString(p.Version) {
		return "", fmt.Errorf("version %q of %s is not a valid pkg:%s version: not turned into a command", p.Version, name, p.Type)
	}
	return r.command(name, p.Version), nil
}

// ErrNoInstaller is the error of a package URL whose type has no one
// install command (generic, maven, ...).
var ErrNoInstaller = errors.New("no install command")

// installer turns a checked name and version into a command line.
type installer struct {
	name, version *regexp.Regexp
	namespace     bool // the namespace is part of the name
	subpath       bool // and so is the subpath
	command       func(name, version string) string
}

var (
	// Module paths: elements of letters, digits and -._~ (golang.org/x/mod
	// module.CheckPath); the first is a domain.
	goPath    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._~-]*(/[A-Za-z0-9._~-]+)*$`) })
	goVersion = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^v[0-9A-Za-z.+-]+$`) })
	// npm: an optional @scope/, then a name; semver versions.
	npmName = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(@[a-z0-9][a-z0-9._~-]*/)?[A-Za-z0-9][A-Za-z0-9._~-]*$`)
	})
	semver    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z.+-]*$`) })
	debName   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9+.-]+$`) })
	debVer    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z.+~:-]*$`) })
	plainName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`) })
	// PEP 440 versions, less "!" (the epoch separator, which bash's
	// history expansion would act on).
	pypiVer = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z.+-]*$`) })
)

var installers = sync.OnceValue(func() map[string]installer {
	return map[string]installer{
		packageurl.TypeGolang: {name: goPath(), version: goVersion(), namespace: true, subpath: true,
			command: func(name, version string) string {
				if version == "" {
					version = "latest"
				}
				return "go install " + name + "@" + version
			}},
		packageurl.TypeNPM: {name: npmName(), version: semver(), namespace: true,
			command: func(name, version string) string { return "npm i -g " + name + withSep("@", version) }},
		packageurl.TypeDebian: {name: debName(), version: debVer(),
			command: func(name, version string) string { return "apt-get install " + name + withSep("=", version) }},
		packageurl.TypeNuget: {name: plainName(), version: semver(),
			command: func(name, version string) string {
				return "dotnet tool install -g " + name + withSep(" --version ", version)
			}},
		packageurl.TypeCargo: {name: plainName(), version: semver(),
			command: func(name, version string) string { return "cargo install " + name + withSep(" --version ", version) }},
		packageurl.TypePyPi: {name: plainName(), version: pypiVer(),
			command: func(name, version string) string { return "pipx install " + name + withSep("==", version) }},
	}
})

func withSep(sep, version string) string {
	if version == "" {
		return ""
	}
	return sep + version
}

// downloads are where the toolchains that no package manager installs
// the same way everywhere come from (pkg:generic names in the shipped
// specs). Only these fixed addresses are shown: a spec is untrusted, so
// its package URL never supplies a link a person would follow.
var downloads = map[string]string{
	"go":         "https://go.dev/dl/",
	"rustup":     "https://rustup.rs/",
	"nodejs":     "https://nodejs.org/en/download",
	"dotnet-sdk": "https://dotnet.microsoft.com/download",
}

// installFields fills in the install command of the package URL that
// provides executable, or a note saying what to do instead: where to
// download a toolchain, and that gofmt comes with go.
func installFields(executable, purl string) (command, note string) {
	if strings.TrimSpace(purl) == "" {
		return "", ""
	}
	command, err := InstallCommand(purl)
	if err == nil {
		return command, ""
	}
	p, perr := packageurl.FromString(purl)
	if perr != nil || !errors.Is(err, ErrNoInstaller) {
		return "", err.Error()
	}
	what := p.Name
	if p.Version != "" && semver().MatchString(p.Version) {
		what += " " + p.Version
	}
	note = "install " + what + " as its project documents"
	if url, ok := downloads[p.Name]; ok {
		note = "install " + what + " from " + url
	}
	if executable != "" && executable != p.Name && plainName().MatchString(p.Name) {
		note = executable + " comes with " + p.Name + ": " + note
	}
	return "", note
}
