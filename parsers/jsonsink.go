package parsers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/ohler55/ojg/jp"
	"github.com/ohler55/ojg/oj"

	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// MaxJSONBytes caps the output a json parser without jsonLines buffers.
const MaxJSONBytes = 64 << 20

// jsonQuery is a compiled json parser config.
type jsonQuery struct {
	name     string
	path     jp.Expr
	definite bool // path selects at most one value
	// rootFilter: the path starts with a filter ($[?(...)]), which in
	// jsonLines mode tests the line document itself.
	rootFilter bool
	fields     map[string]jp.Expr // nil: output the selected values
	build      diagnosticBuilder
	max        int
}

// jsonSink buffers the whole output and queries it at the end.
type jsonSink struct {
	q        *jsonQuery
	maxBytes int
	buf      bytes.Buffer
	over     bool
}

func (s *jsonSink) line(line []byte) {
	if s.over {
		return
	}
	if s.buf.Len()+len(line)+1 > s.maxBytes {
		s.over = true
		s.buf = bytes.Buffer{} // release the memory now
		return
	}
	s.buf.Write(line)
	s.buf.WriteByte('\n')
}

func (s *jsonSink) finish(int) (Result, error) {
	if s.over {
		return Result{}, failure.New(failure.ToolFailed, "output %q: JSON output exceeds %d bytes; parse it with jsonLines or a smaller command", s.q.name, s.maxBytes)
	}
	data := bytes.TrimSpace(s.buf.Bytes())
	if len(data) == 0 {
		return Result{}, failure.New(failure.ToolFailed, "output %q: the tool printed no JSON", s.q.name)
	}
	doc, err := parseJSON(new(oj.Parser), data)
	if err != nil {
		return Result{}, failure.Wrap(failure.ToolFailed, err, "output %q: output is not JSON (starts with %q)", s.q.name, head(data))
	}
	got := s.q.path.Get(doc)
	if s.q.fields != nil {
		var list diagnosticList
		list.max = s.q.max
		for _, item := range got {
			s.q.addDiagnostic(&list, item)
		}
		return list.result(), nil
	}
	if s.q.definite {
		if len(got) == 0 {
			return Result{}, nil
		}
		return Result{Value: got[0]}, nil
	}
	if len(got) > s.q.max {
		got = got[:s.q.max]
	}
	if got == nil {
		got = []any{}
	}
	return Result{Value: got}, nil
}

// parseJSON parses one JSON document. ojg's parser panics on some
// malformed input (`{"a":}`), so only what encoding/json accepts reaches
// it, and a panic it still has is this document's parse error.
func parseJSON(p *oj.Parser, data []byte) (doc any, err error) {
	if !json.Valid(data) {
		var v struct{}
		err := json.Unmarshal(data, &v) // the reason, with its offset
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return nil, err
	}
	defer func() {
		if v := recover(); v != nil {
			*p = oj.Parser{} // its state is unknown
			doc, err = nil, fmt.Errorf("JSON parser failed: %v", v)
		}
	}()
	doc, err = p.Parse(data)
	if err != nil {
		return nil, err
	}
	return finite(doc), nil
}

// finite replaces the infinities that numbers beyond float64 (1e999)
// parse to with null: results are sent as JSON, which has no infinity.
func finite(v any) any {
	switch v := v.(type) {
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return nil
		}
	case []any:
		for i, e := range v {
			v[i] = finite(e)
		}
	case map[string]any:
		for k, e := range v {
			v[k] = finite(e)
		}
	}
	return v
}

// head returns the start of data for error messages.
func head(data []byte) string {
	const n = 60
	if len(data) > n {
		return string(data[:n]) + "…"
	}
	return string(data)
}

// jsonLinesSink queries each line as its own JSON document.
type jsonLinesSink struct {
	q       *jsonQuery
	parser  oj.Parser
	values  []any
	list    diagnosticList
	docs    int
	bad     int
	badErr  error
	badHead string
}

func (s *jsonLinesSink) line(line []byte) {
	line = bytes.TrimSpace(line)
	// Tools mix plain text lines into JSON streams (cargo's build script
	// output, go test's build errors); only lines that look like JSON count.
	if len(line) == 0 || (line[0] != '{' && line[0] != '[') {
		return
	}
	doc, err := parseJSON(&s.parser, line)
	if err != nil {
		if s.bad == 0 {
			s.badErr, s.badHead = err, head(line)
		}
		s.bad++
		return
	}
	s.docs++
	var got []any
	if s.q.rootFilter {
		got = s.q.path.Get([]any{doc})
	} else {
		got = s.q.path.Get(doc)
	}
	for _, v := range got {
		if s.q.fields != nil {
			s.q.addDiagnostic(&s.list, v)
		} else if len(s.values) < s.q.max {
			s.values = append(s.values, v)
		}
	}
}

func (s *jsonLinesSink) finish(int) (Result, error) {
	if s.docs == 0 && s.bad > 0 {
		return Result{}, failure.Wrap(failure.ToolFailed, s.badErr, "output %q: none of %d JSON lines parsed (first: %q)", s.q.name, s.bad, s.badHead)
	}
	if s.q.fields != nil {
		return s.list.result(), nil
	}
	values := s.values
	if values == nil {
		values = []any{}
	}
	return Result{Value: values}, nil
}

// addDiagnostic turns one selected item into a diagnostic using the
// fields paths; items without a message are skipped.
func (q *jsonQuery) addDiagnostic(list *diagnosticList, item any) {
	text := func(key string) string {
		x, ok := q.fields[key]
		if !ok {
			return ""
		}
		return jsonText(x.First(item))
	}
	pos := func(key string) int {
		x, ok := q.fields[key]
		if !ok {
			return -1
		}
		switch v := x.First(item).(type) {
		case int64:
			if v >= 0 {
				return int(v)
			}
		case float64:
			// Converting a float beyond the int range is undefined.
			if v >= 0 && v < math.MaxInt64 {
				return int(v)
			}
		case string:
			return atoiPos(v)
		}
		return -1
	}
	d := diagnostic.Diagnostic{Path: text("file"), Code: text("code"), Message: text("message"), Source: text("source")}
	if d.Message == "" {
		return
	}
	q.build.finish(&d, pos("line"), pos("column"), pos("endLine"), pos("endColumn"), text("severity"))
	list.add(d)
}

// jsonText renders a scalar JSON value as text; objects and arrays give "".
func jsonText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return fmt.Sprint(v)
	}
	return ""
}
