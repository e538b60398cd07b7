package plugins

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi"
)

// FuzzDecodeDescription feeds hostile cache files to the decoder: it must
// never panic, and whatever it accepts is a description the host can
// register, which encodes back to the same entry.
func FuzzDecodeDescription(f *testing.F) {
	const key = "0123456789abcdef0123456789abcdef"
	valid := &pluginapi.Description{Name: "p", Version: "1", Operations: []pluginapi.Operation{
		{Name: "echo", Description: "Echo.", SideEffects: "none", InputSchema: json.RawMessage(`{"type":"object"}`),
			FailureCodes: []string{"invalid_input"}},
		{Name: "rename", SideEffects: "workspace", OutputSchema: json.RawMessage(`{"type":"object","properties":{"diff":{"type":"string"}}}`)},
	}}
	f.Add(encodeEntry(f, key, valid))
	f.Add([]byte(`{"format":1,"key":"` + key + `","sum":""}` + "\n" + `{}`))
	f.Add([]byte("\n"))
	f.Add([]byte(`{"format":1}` + "\n" + `{"operations":[{"name":"a"},{"name":"a"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := decodeDescription(data, key)
		if err != nil {
			return
		}
		if err := d.ValidateShape(); err != nil {
			t.Fatalf("accepted a description that fails ValidateShape: %v", err)
		}
		again, err := decodeDescription(encodeEntry(t, key, d), key)
		if err != nil {
			t.Fatalf("re-encoded entry does not decode: %v", err)
		}
		if !reflect.DeepEqual(normalize(t, again), normalize(t, d)) {
			t.Fatalf("round trip changed the description:\n%+v\n%+v", d, again)
		}
	})
}

// encodeEntry builds a cache file the way storeDescription does.
func encodeEntry(tb testing.TB, key string, d *pluginapi.Description) []byte {
	tb.Helper()
	body, err := json.Marshal(d)
	if err != nil {
		tb.Fatal(err)
	}
	header, err := json.Marshal(describeHeader{Format: describeFormat, Key: key, Sum: checksum(body)})
	if err != nil {
		tb.Fatal(err)
	}
	return append(append(header, '\n'), body...)
}

// normalize compares descriptions by their JSON, where a schema's
// insignificant spaces are gone.
func normalize(tb testing.TB, d *pluginapi.Description) any {
	tb.Helper()
	data, err := json.Marshal(d)
	if err != nil {
		tb.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		tb.Fatal(err)
	}
	return v
}
