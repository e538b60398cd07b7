package txnlog

import (
	"encoding/json"
	"testing"
)

// FuzzParseRecord feeds record files to the parser: it must never panic,
// and a record it accepts has only clean paths and well-formed hashes and
// survives a round trip.
func FuzzParseRecord(f *testing.F) {
	const id = "20260101T000000000000-abcd"
	f.Add([]byte(`{"id":"` + id + `","seq":1,"time":"2026-01-01T00:00:00Z","tool":"t","operation":"edit_file","trace":["x"],"files":[{"path":"a.go","before":"` + Hash([]byte("a")) + `","after":"` + Hash([]byte("b")) + `"}]}`))
	f.Add([]byte(`{"id":"` + id + `","seq":2,"files":[{"path":"../x","after":"sha256:00"}],"undoes":"a/b"}`))
	f.Add([]byte(`{"id":"` + id + `","seq":3,"files":[{"path":"a","after":"` + Hash(nil) + `"},{"path":"a","after":"` + Hash(nil) + `"}]}`))
	f.Add([]byte(`{"id":"` + id + `","seq":18446744073709551615,"delta":{"new":[{"path":"\u001b]0;x\u0007"}]}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := parseRecord(id, b)
		if err != nil {
			return
		}
		if rec.ID != id || rec.Seq == 0 {
			t.Fatalf("accepted %+v", rec)
		}
		for _, file := range rec.Files {
			if checkClean("path", file.Path) != nil || !validHash(file.Before) || !validHash(file.After) {
				t.Fatalf("accepted a file %+v", file)
			}
		}
		again, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parseRecord(id, again); err != nil {
			t.Fatalf("a record the parser accepted does not parse again: %v\n%s", err, again)
		}
	})
}
