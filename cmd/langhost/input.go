package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// readInput builds a tool's input from --input (JSON, @file or - for
// stdin) and key=value arguments; pairs override keys of --input. Values of
// pairs are converted to the type the tool's schema declares.
func readInput(t *registry.Tool, raw string, pairs []string, stdin io.Reader) (map[string]any, error) {
	input := map[string]any{}
	if raw != "" {
		data := []byte(raw)
		source := "--input"
		switch {
		case raw == "-":
			b, err := io.ReadAll(stdin)
			if err != nil {
				return nil, failure.Wrap(failure.InvalidInput, err, "read input from stdin")
			}
			data, source = b, "stdin"
		case strings.HasPrefix(raw, "@"):
			b, err := os.ReadFile(raw[1:])
			if err != nil {
				return nil, failure.Wrap(failure.InvalidInput, err, "--input")
			}
			data, source = b, raw[1:]
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		if err := dec.Decode(&input); err != nil {
			return nil, failure.Wrap(failure.InvalidInput, err, "%s: input must be a JSON object", source)
		}
		if dec.More() {
			return nil, failure.New(failure.InvalidInput, "%s: unexpected data after the JSON object", source)
		}
		if input == nil {
			input = map[string]any{}
		}
	}
	for _, p := range pairs {
		key, val, ok := strings.Cut(p, "=")
		if !ok || key == "" {
			return nil, &failure.Error{Code: failure.InvalidInput, Field: p, Message: "expected key=value"}
		}
		v, err := convert(t, key, val)
		if err != nil {
			return nil, err
		}
		input[key] = v
	}
	return input, nil
}

func convert(t *registry.Tool, key, val string) (any, error) {
	typ := ""
	if ps, ok := t.InputSchema.Properties[key]; ok {
		typ = ps.Type
	}
	bad := func(err error) error {
		return &failure.Error{Code: failure.InvalidInput, Field: key, Message: fmt.Sprintf("%q is not a valid %s", val, typ), Err: err}
	}
	switch typ {
	case "integer", "number":
		f, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return nil, bad(err)
		}
		return f, nil
	case "boolean":
		b, err := strconv.ParseBool(val)
		if err != nil {
			return nil, bad(err)
		}
		return b, nil
	case "array":
		var list []any
		if json.Unmarshal([]byte(val), &list) == nil {
			return list, nil
		}
		for _, s := range strings.Split(val, ",") {
			list = append(list, s)
		}
		return list, nil
	case "object":
		var obj map[string]any
		if err := json.Unmarshal([]byte(val), &obj); err != nil {
			return nil, bad(err)
		}
		return obj, nil
	}
	return val, nil
}
