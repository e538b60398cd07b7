package spec

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"
)

// decodeBoth decodes a spec that passes the structure walk with decodeNode
// and with yaml.v3's Node.Decode and returns both as JSON, or ok false when
// the spec is not comparable (invalid, or yaml.v3's result has no JSON
// form, such as a map with a non-string key).
func decodeBoth(t testing.TB, data []byte) (ours, theirs string, ok bool) {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return "", "", false
	}
	if n, _ := checkAliases(&doc); n != nil {
		return "", "", false
	}
	problems := 0
	report := func(*yaml.Node, string, string) { problems++ }
	root := doc.Content[0]
	checkStructure(root, reflect.TypeFor[File](), "", report)
	var a, b File
	decodeNode(root, reflect.ValueOf(&a).Elem(), "", map[*yaml.Node]bool{}, report)
	if problems > 0 || root.Decode(&b) != nil {
		return "", "", false
	}
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	if errA != nil {
		t.Fatalf("decodeNode result has no JSON form: %v", errA)
	}
	return string(ja), string(jb), errB == nil
}

func TestDecodeMatchesYAML(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.yaml")
	shipped, _ := filepath.Glob("../../languages/*.yaml")
	inputs := map[string][]byte{}
	for _, file := range append(files, shipped...) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		inputs[file] = data
	}
	inputs["anchors and merges"] = []byte(`language: {id: demo, extensions: &ext [.d, .di]}
tools:
  build: &b
    command: make
    args: [all]
    env: &env {A: "1", B: two}
    timeout: 90s
    inputs:
      n: {type: integer, flag: -n, default: 3, enum: [1, 3, 0x10, 1.5, true, ~, "s"]}
  test:
    command: make
    env: {B: three, C: 4}
semantic:
  command: srv
  settings: {a: {b: [1, {c: d}]}, e: null, <<: [{f: 1}, {f: 2, g: 3}]}
  initializationOptions: {x: *ext}
`)
	for name, data := range inputs {
		ours, theirs, ok := decodeBoth(t, data)
		if !ok {
			t.Errorf("%s: not comparable", name)
			continue
		}
		if ours != theirs {
			t.Errorf("%s: decodeNode differs from yaml.v3:\nours:   %s\ntheirs: %s", name, ours, theirs)
		}
	}
}
