package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/itchyny/gojq"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// jqFilter is a compiled --jq expression. Like gh's --jq it applies to the
// JSON envelope; strings are printed raw, other values as JSON.
type jqFilter struct {
	expr string
	code *gojq.Code
}

// compileJQ parses and compiles expr; a bad expression is invalid input
// naming --jq, found before the command does anything.
func compileJQ(expr string) (*jqFilter, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, jqError(expr, err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, jqError(expr, err)
	}
	return &jqFilter{expr: expr, code: code}, nil
}

func jqError(expr string, err error) error {
	return &failure.Error{Code: failure.InvalidInput, Field: "--jq",
		Message: fmt.Sprintf("%q", expr), Err: err}
}

// apply runs the filter on v (re-read as plain JSON values) and writes
// each result on its own line.
func (j *jqFilter) apply(ctx context.Context, w io.Writer, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // integers stay exact
	var in any
	if err := dec.Decode(&in); err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	var out bytes.Buffer
	iter := j.code.RunWithContext(ctx, in)
	for {
		r, ok := iter.Next()
		if !ok {
			break
		}
		if err, isErr := r.(error); isErr {
			var halt *gojq.HaltError
			if errors.As(err, &halt) && halt.Value() == nil {
				break
			}
			_, _ = w.Write(out.Bytes())
			return jqError(j.expr, err)
		}
		if s, isString := r.(string); isString {
			out.WriteString(s)
			out.WriteByte('\n')
			continue
		}
		b, err := gojq.Marshal(r)
		if err != nil {
			return jqError(j.expr, err)
		}
		if err := json.Indent(&out, b, "", "  "); err != nil {
			out.Write(b)
		}
		out.WriteByte('\n')
	}
	_, err = w.Write(out.Bytes())
	return err
}
