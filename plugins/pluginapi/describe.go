package pluginapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Side effects an operation may declare.
const (
	// SideEffectsNone marks a read-only operation.
	SideEffectsNone = "none"
	// SideEffectsWorkspace marks an operation that may write workspace
	// files when the call is confirmed (InvokeRequest.Confirmed).
	SideEffectsWorkspace = "workspace"
)

// Limits of a Description. The host registers one tool per operation and
// serves the schemas to every client, so a plugin (or a cache file) cannot
// make it hold more than this.
const (
	MaxOperations        = 256
	MaxNameLength        = 64
	MaxTextLength        = 4 << 10  // Name, Version, Operation.Description
	MaxSchemaSize        = 1 << 20  // each schema, in bytes
	MaxSchemasSize       = 16 << 20 // all schemas together, in bytes
	MaxDescriptionSize   = 32 << 20 // a valid description as JSON is smaller
	maxFailureCodesPerOp = 16
)

// knownFailures are the failure classes an operation may declare.
var knownFailures = map[failure.Code]bool{
	failure.ToolFailed: true, failure.InvalidInput: true, failure.NotFound: true,
	failure.Precondition: true, failure.Timeout: true, failure.Ambiguous: true,
	failure.Internal: true, failure.Unsupported: true, failure.Canceled: true,
	// Edit transactions.
	failure.AnchorNotResolved: true, failure.Postcondition: true,
	failure.DiagnosticRegression: true, failure.WorkspaceApplyFailed: true,
}

// Validate checks that d is a description the host can turn into tools:
// at most MaxOperations operations with unique names of lower-case
// letters, digits and '_' (starting with a letter), texts within
// MaxTextLength, input and output schemas that are JSON Schema objects
// within MaxSchemaSize each and MaxSchemasSize together (an input schema must also resolve, without remote
// references), known side effects and failure codes. The error is a
// failure.InvalidInput naming the operation and field. A plugin author can
// call it in a test of Describe.
func (d *Description) Validate() error { return d.validate(true) }

// ValidateShape checks what Validate does, except that it takes schemas
// that are JSON objects within the limits without decoding them as JSON
// Schema, which costs milliseconds per operation. It is for a description
// that passed Validate before it was stored, such as the host's cache of
// descriptions: a schema that is not JSON Schema then costs the tool its
// input validation by the host (the plugin validates its input anyway),
// never more.
func (d *Description) ValidateShape() error { return d.validate(false) }

func (d *Description) validate(schemas bool) error {
	if d == nil {
		return invalidDescription("", "description is empty")
	}
	if err := checkText("name", d.Name); err != nil {
		return err
	}
	if err := checkText("version", d.Version); err != nil {
		return err
	}
	if len(d.Operations) > MaxOperations {
		return invalidDescription("operations", "describes %d operations, more than %d", len(d.Operations), MaxOperations)
	}
	seen := make(map[string]bool, len(d.Operations))
	size := 0
	for i := range d.Operations {
		op := &d.Operations[i]
		if err := op.validate(schemas); err != nil {
			return err
		}
		if size += len(op.InputSchema) + len(op.OutputSchema); size > MaxSchemasSize {
			return invalidDescription("operations", "the schemas take more than %d bytes", MaxSchemasSize)
		}
		if seen[op.Name] {
			return invalidDescription(opField(op.Name, "name"), "operation %q is described twice", op.Name)
		}
		seen[op.Name] = true
	}
	return nil
}

func (op *Operation) validate(schemas bool) error {
	if !validName(op.Name) {
		return invalidDescription("operations.name", "operation name %q is not 1 to %d lower-case letters, digits or '_' starting with a letter", truncate(op.Name), MaxNameLength)
	}
	if err := checkText(opField(op.Name, "description"), op.Description); err != nil {
		return err
	}
	switch op.SideEffects {
	case "", SideEffectsNone, SideEffectsWorkspace:
	default:
		return invalidDescription(opField(op.Name, "sideEffects"), "side effects %q are neither %q nor %q", truncate(op.SideEffects), SideEffectsNone, SideEffectsWorkspace)
	}
	if err := checkText(opField(op.Name, "workspaceCode"), op.WorkspaceCode); err != nil {
		return err
	}
	if len(op.FailureCodes) > maxFailureCodesPerOp {
		return invalidDescription(opField(op.Name, "failureCodes"), "declares %d failure codes, more than %d", len(op.FailureCodes), maxFailureCodesPerOp)
	}
	for _, c := range op.FailureCodes {
		if !knownFailures[failure.Code(c)] {
			return invalidDescription(opField(op.Name, "failureCodes"), "unknown failure code %q", truncate(c))
		}
	}
	in, err := checkSchema(opField(op.Name, "inputSchema"), op.InputSchema, schemas)
	if err != nil {
		return err
	}
	if in != nil {
		// The host validates every call's input against it: a schema that
		// does not resolve would fail every call.
		if _, err := in.Resolve(nil); err != nil {
			return &failure.Error{Code: failure.InvalidInput, Field: opField(op.Name, "inputSchema"),
				Message: "plugin description: input schema does not resolve", Err: err}
		}
	}
	_, err = checkSchema(opField(op.Name, "outputSchema"), op.OutputSchema, schemas)
	return err
}

// checkSchema checks that raw, which may be empty or null (any value), is
// a JSON object within MaxSchemaSize and, if decode is set, decodes it as a
// JSON Schema, which it returns.
func checkSchema(field string, raw json.RawMessage, decode bool) (*jsonschema.Schema, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if len(raw) > MaxSchemaSize {
		return nil, invalidDescription(field, "schema is %d bytes, more than %d", len(raw), MaxSchemaSize)
	}
	if raw[0] != '{' || !json.Valid(raw) {
		return nil, invalidDescription(field, "schema is not a JSON object")
	}
	if !decode {
		return nil, nil
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, &failure.Error{Code: failure.InvalidInput, Field: field, Message: "plugin description: schema is not a JSON Schema", Err: err}
	}
	return &s, nil
}

func checkText(field, s string) error {
	if len(s) > MaxTextLength {
		return invalidDescription(field, "is %d bytes long, more than %d", len(s), MaxTextLength)
	}
	if !utf8.ValidString(s) {
		return invalidDescription(field, "is not valid UTF-8")
	}
	return nil
}

func validName(s string) bool {
	if len(s) == 0 || len(s) > MaxNameLength || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

func opField(op, field string) string {
	return "operations." + op + "." + field
}

// truncate keeps hostile values short in error messages.
func truncate(s string) string {
	const n = 80
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

func invalidDescription(field, format string, args ...any) *failure.Error {
	return &failure.Error{Code: failure.InvalidInput, Field: field, Message: "plugin description: " + fmt.Sprintf(format, args...)}
}
