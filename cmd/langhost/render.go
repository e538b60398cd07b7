package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
)

// value is a JSON value that keeps the order of object keys, so that text
// output shows a result's fields in the order its producer wrote them.
type value struct {
	keys   []string // object
	fields map[string]*value
	items  []*value // array
	scalar any      // string, json.Number, bool or nil
	kind   byte     // '{', '[' or 0 for a scalar
}

// decodeValue decodes JSON, keeping key order.
func decodeValue(data []byte) (*value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return decodeNext(dec)
}

func decodeNext(dec *json.Decoder) (*value, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		v := &value{kind: '{', fields: map[string]*value{}}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k, _ := kt.(string)
			fv, err := decodeNext(dec)
			if err != nil {
				return nil, err
			}
			if _, dup := v.fields[k]; !dup {
				v.keys = append(v.keys, k)
			}
			v.fields[k] = fv
		}
		_, err := dec.Token()
		return v, err
	case json.Delim('['):
		v := &value{kind: '['}
		for dec.More() {
			item, err := decodeNext(dec)
			if err != nil {
				return nil, err
			}
			v.items = append(v.items, item)
		}
		_, err := dec.Token()
		return v, err
	}
	return &value{scalar: tok}, nil
}

// dropped reports whether a field is left out of the text.
func (r renderer) dropped(key string) bool { return key == "diff" && r.noDiff }

// flat reports whether v is an object of one-line scalars (a table row).
func (r renderer) flat(v *value) bool {
	if v.kind != '{' {
		return false
	}
	for _, k := range v.keys {
		f := v.fields[k]
		if !r.dropped(k) && (f.kind != 0 || strings.Contains(f.text(), "\n")) {
			return false
		}
	}
	return true
}

// isDiagnostic reports whether v has the diagnostic shape.
func (v *value) isDiagnostic() bool {
	return v.kind == '{' && v.fields["severity"] != nil && v.fields["message"] != nil
}

func (v *value) text() string {
	switch s := v.scalar.(type) {
	case nil:
		return "-"
	case string:
		return printable(s)
	}
	return fmt.Sprint(v.scalar)
}

// renderer writes a JSON value for reading: "key: value" lines, tables
// for lists of flat objects, diagnostics as path:line:col: severity:
// message, diffs raw. Never a JSON blob.
type renderer struct {
	w  io.Writer
	st style
	// skip are top-level keys already printed (a result's diagnostics).
	skip map[string]bool
	// noDiff drops nested "diff" fields: the object's own diff, printed
	// in full, already shows them.
	noDiff bool
}

// renderJSON renders any value that marshals to JSON.
func (r renderer) renderJSON(data []byte) error {
	v, err := decodeValue(data)
	if err != nil {
		return fmt.Errorf("render result: %w", err)
	}
	r.value("", v)
	return nil
}

// value writes v at the given indentation.
func (r renderer) value(indent string, v *value) {
	switch v.kind {
	case '{':
		skip := r.skip
		r.skip = nil
		ownDiff := v.fields["diff"] != nil && v.fields["diff"].kind == 0
		for _, k := range v.keys {
			if skip[k] || r.dropped(k) {
				continue
			}
			child := r
			child.noDiff = r.noDiff || (ownDiff && k != "diff")
			child.field(indent, k, v.fields[k])
		}
	case '[':
		r.list(indent, v)
	default:
		r.block(indent, "", v.text())
	}
}

func (r renderer) field(indent, key string, v *value) {
	key = printable(key)
	if lm, ok := lineMatch(v); ok {
		// A lineMatch parser's output: the lines it matched, counted.
		fmt.Fprintf(r.w, "%s%s: %s\n", indent, key, lm)
		for _, l := range v.fields["lines"].items {
			fmt.Fprintf(r.w, "%s  %s\n", indent, l.text())
		}
		return
	}
	switch {
	case v.kind == 0:
		s := v.text()
		if key == "diff" || strings.Contains(s, "\n") {
			fmt.Fprintf(r.w, "%s%s:\n", indent, key)
			r.block(indent+"  ", key, s)
			return
		}
		fmt.Fprintf(r.w, "%s%s: %s\n", indent, key, s)
	case v.kind == '[' && len(v.items) == 0:
		fmt.Fprintf(r.w, "%s%s: (none)\n", indent, key)
	case v.kind == '[' && scalars(v.items):
		parts := make([]string, len(v.items))
		for i, it := range v.items {
			parts[i] = it.text()
		}
		fmt.Fprintf(r.w, "%s%s: %s\n", indent, key, strings.Join(parts, ", "))
	default:
		fmt.Fprintf(r.w, "%s%s:\n", indent, key)
		r.value(indent+"  ", v)
	}
}

// block writes a multi-line string; a diff is written raw (coloured on
// a terminal) so that it can be read or piped to patch.
func (r renderer) block(indent, key string, s string) {
	diff := key == "diff" || strings.HasPrefix(s, "--- ") || strings.HasPrefix(s, "diff ")
	if diff {
		indent = ""
	}
	for line := range strings.SplitSeq(strings.TrimSuffix(s, "\n"), "\n") {
		if diff {
			line = r.st.diffLine(line)
		}
		fmt.Fprintf(r.w, "%s%s\n", indent, line)
	}
}

func (r renderer) list(indent string, v *value) {
	switch {
	case allOf(v.items, (*value).isDiagnostic):
		for _, it := range v.items {
			fmt.Fprintf(r.w, "%s%s\n", indent, r.diagnostic(asDiagnostic(it)))
		}
	case allOf(v.items, r.flat):
		var cols []string
		seen := map[string]bool{}
		for _, it := range v.items {
			for _, k := range it.keys {
				if !seen[k] && !r.dropped(k) {
					seen[k] = true
					cols = append(cols, k)
				}
			}
		}
		header := make([]string, len(cols))
		for i, c := range cols {
			header[i] = columnName(c)
		}
		rows := [][]string{header}
		for _, it := range v.items {
			row := make([]string, len(cols))
			for i, c := range cols {
				row[i] = "-"
				if f := it.fields[c]; f != nil {
					row[i] = strings.ReplaceAll(f.text(), "\n", " ")
				}
			}
			rows = append(rows, row)
		}
		var b strings.Builder
		_ = r.st.table(&b, rows, nil)
		r.block(indent, "", b.String())
	default:
		for _, it := range v.items {
			if it.kind == 0 {
				fmt.Fprintf(r.w, "%s- %s\n", indent, it.text())
				continue
			}
			fmt.Fprintf(r.w, "%s-\n", indent)
			r.value(indent+"  ", it)
		}
	}
}

// diagnostic renders d as path:line:col: severity: message [code], the
// severity coloured on a terminal.
func (r renderer) diagnostic(d diagnostic.Diagnostic) string {
	s := printable(d.String())
	sev := printable(d.Severity)
	switch {
	case sev == "":
	case strings.HasPrefix(s, sev+": "):
		s = r.st.severity(sev) + strings.TrimPrefix(s, sev)
	default:
		s = strings.Replace(s, ": "+sev+": ", ": "+r.st.severity(sev)+": ", 1)
	}
	return s
}

func asDiagnostic(v *value) diagnostic.Diagnostic {
	var d diagnostic.Diagnostic
	b, err := json.Marshal(v.plain())
	if err == nil {
		_ = json.Unmarshal(b, &d)
	}
	return d
}

// plain converts v back to ordinary Go values (for re-encoding).
func (v *value) plain() any {
	switch v.kind {
	case '{':
		m := make(map[string]any, len(v.keys))
		for _, k := range v.keys {
			m[k] = v.fields[k].plain()
		}
		return m
	case '[':
		s := make([]any, len(v.items))
		for i, it := range v.items {
			s[i] = it.plain()
		}
		return s
	}
	return v.scalar
}

func scalars(items []*value) bool {
	return allOf(items, func(v *value) bool { return v.kind == 0 && !strings.Contains(v.text(), "\n") })
}

func allOf(items []*value, ok func(*value) bool) bool {
	if len(items) == 0 {
		return false
	}
	for _, it := range items {
		if !ok(it) {
			return false
		}
	}
	return true
}

// columnName is a field name as a table header: containingKind and
// end_line become CONTAINING KIND and END LINE.
func columnName(key string) string {
	var b strings.Builder
	for i, r := range key {
		switch {
		case r == '_':
			b.WriteByte(' ')
			continue
		case i > 0 && r >= 'A' && r <= 'Z':
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
}

// lineMatch recognises the output of a lineMatch parser ({count, lines,
// truncated}) and says how many lines it matched.
func lineMatch(v *value) (string, bool) {
	if v.kind != '{' || len(v.keys) != 3 {
		return "", false
	}
	count, lines, truncated := v.fields["count"], v.fields["lines"], v.fields["truncated"]
	if count == nil || lines == nil || truncated == nil || lines.kind != '[' || !scalars(lines.items) && len(lines.items) > 0 {
		return "", false
	}
	s := count.text() + " lines"
	if count.text() == "1" {
		s = "1 line"
	}
	if truncated.scalar == true {
		s += fmt.Sprintf(" (%d shown)", len(lines.items))
	}
	return s, true
}
