package dotnet

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// element is a parsed XML element with the line it starts on, enough for
// MSBuild and .slnx files; namespaces are dropped because MSBuild ignores them.
type element struct {
	Name     string
	Attrs    []xml.Attr
	Children []*element
	Text     string
	Line     int

	text strings.Builder // Text while parsing
}

// Attr returns the value of the attribute name, or "".
func (e *element) Attr(name string) string {
	v, _ := e.lookupAttr(name)
	return v
}

func (e *element) lookupAttr(name string) (string, bool) {
	for _, a := range e.Attrs {
		if a.Name.Local == name {
			return a.Value, true
		}
	}
	return "", false
}

// child returns the first child element with the given name
// (case-insensitive, as MSBuild compares metadata names).
func (e *element) child(name string) *element {
	for _, c := range e.Children {
		if strings.EqualFold(c.Name, name) {
			return c
		}
	}
	return nil
}

// readXML parses the file at p (an absolute slash path inside the
// workspace). display is the path used in error messages.
func (t *tree) readXML(p, display string) (*element, error) {
	data, err := t.readFile(p, display)
	if err != nil {
		return nil, err
	}
	return parseXML(data, display)
}

func parseXML(data []byte, display string) (*element, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	dec := xml.NewDecoder(bytes.NewReader(data))
	// Project files declare utf-8 or utf-16; Go reads utf-8 and we accept
	// other declared charsets as-is rather than failing on the prolog.
	dec.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	var root *element
	var stack []*element
	for {
		line, _ := dec.InputPos()
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return nil, failure.Wrap(failure.InvalidInput, err, "%s:%d: malformed XML", display, se.Line)
			}
			l, _ := dec.InputPos()
			return nil, failure.Wrap(failure.InvalidInput, err, "%s:%d: malformed XML", display, l)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			el := &element{Name: t.Name.Local, Attrs: t.Attr, Line: line}
			if len(stack) > 0 {
				parent := stack[len(stack)-1]
				parent.Children = append(parent.Children, el)
			} else if root == nil {
				root = el
			}
			stack = append(stack, el)
		case xml.EndElement:
			el := stack[len(stack)-1]
			el.Text = el.text.String()
			el.text = strings.Builder{}
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				// A builder, not +=: text split by thousands of
				// comments would otherwise be copied quadratically.
				stack[len(stack)-1].text.Write(t)
			}
		}
	}
	if root == nil {
		return nil, failure.New(failure.InvalidInput, "%s:1: malformed XML: no root element", display)
	}
	return root, nil
}
