package spec

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/langhost/langhost/plugins/semantic"
)

// FuzzParseSpec feeds arbitrary bytes through parsing and validation: no
// input may panic, hang (the alias budget bounds expansion) or yield a spec
// that breaks the invariants the host relies on, and the linear decoder
// must agree with yaml.v3's.
func FuzzParseSpec(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.yaml")
	shipped, _ := filepath.Glob("../../languages/*.yaml")
	for _, file := range append(seeds, shipped...) {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"",
		validSpec,
		aliasBomb(),
		"language: {id: demo, extensions: &e [x, *e]}\ntools: {b: {command: x}}\n",
		"language: {id: demo}\ntools:\n  a: &t {command: x, args: [a], pathArg: 1}\n  b: *t\n  c: {<<: *t}\n",
		"language:\n\tid: demo\n",
		"? [a]\n: b\n",
		"language: {id: demo}\ntools: {a: {command: x, timeout: soon, args: 3, pathArg: 9, inputs: {v: {type: int}}}}\n",
		"language: {id: cs}\nservers:\n  a: &s {command: a-ls, dialect: roslyn, readyTimeout: 1m}\n  b: {<<: *s, command: b-ls, dialect: csharp-ls}\nsemantic: {servers: [a, b]}\n",
		"language: {id: cs}\nservers: {a: {command: a}}\nsemantic: {servers: [a, a, c], command: x, fallback: {command: y}}\n",
		"language: {id: cs}\nsemantic: {command: a, dialect: csharp-ls, fallback: {command: b, args: [--x]}, readyMessage: '(x'}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// A hang detector, not a speed test: the fuzzer has no per-input
		// timeout and would stall silently on an input that never finishes.
		hang := time.AfterFunc(time.Minute, func() { panic(fmt.Sprintf("Parse did not finish on %q", data)) })
		defer hang.Stop()
		// decodeNode replaces yaml.v3's quadratic Node.Decode: same values.
		if ours, theirs, ok := decodeBoth(t, data); ok && ours != theirs {
			t.Fatalf("decodeNode differs from yaml.v3:\nours:   %s\ntheirs: %s", ours, theirs)
		}
		spec, err := Parse("fuzz.yaml", data)
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) || len(fe.Problems) == 0 || len(fe.Problems) > maxProblems+1 {
				t.Fatalf("error is not a FileError with 1..%d problems: %v", maxProblems+1, err)
			}
			for _, p := range fe.Problems {
				if p.File != "fuzz.yaml" || p.Message == "" {
					t.Fatalf("problem without file or message: %+v", p)
				}
			}
			return
		}
		if !languageID().MatchString(spec.Language.ID) {
			t.Fatalf("accepted language id %q", spec.Language.ID)
		}
		if len(spec.ToolOrder) != len(spec.Tools) {
			t.Fatalf("ToolOrder %v does not list the %d tools", spec.ToolOrder, len(spec.Tools))
		}
		for _, key := range spec.ToolOrder {
			tool := spec.Tools[key]
			if tool == nil || tool.Key != key || tool.Command == "" || !strings.HasPrefix(tool.ID, spec.Language.ID+".") {
				t.Fatalf("tool %q accepted in a bad state: %+v", key, tool)
			}
			if len(tool.InputOrder) != len(tool.Inputs) || len(tool.Parsers) != len(tool.OutputParsers) {
				t.Fatalf("tool %q: inputs or parsers not all validated", key)
			}
		}
		if s := spec.Semantic; s != nil {
			// A semantic block that loads names servers the engine
			// accepts: what the host validated, the plugin takes.
			if len(s.Candidates) == 0 {
				t.Fatalf("semantic block accepted without a server: %+v", s)
			}
			raw, err := json.Marshal(s)
			if err != nil {
				t.Fatalf("encoding the semantic block: %v", err)
			}
			cfg, err := semantic.ParseConfig(raw)
			if err != nil {
				t.Fatalf("the engine refuses the semantic block the spec accepted: %v\n%s", err, raw)
			}
			if len(cfg.Servers) != len(s.Candidates) {
				t.Fatalf("%d candidates sent as %d servers: %s", len(s.Candidates), len(cfg.Servers), raw)
			}
		}
	})
}
