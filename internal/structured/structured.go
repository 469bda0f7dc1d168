// Package structured holds an agent's structuredOutput: the JSON Schema its
// final answer must match, how the model is asked for it (the chat wire's
// response_format), and the check of an answer against it — with a
// well-kept schema library (Google's jsonschema-go, the one the MCP SDK
// uses), not a hand-written validator.
package structured

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Schema is a compiled structuredOutput schema.
type Schema struct {
	raw      json.RawMessage
	resolved *jsonschema.Resolved
}

// Compile checks and prepares a JSON Schema.
func Compile(raw json.RawMessage) (*Schema, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("not a JSON Schema: %v", err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, err
	}
	return &Schema{raw: raw, resolved: r}, nil
}

// ResponseFormat is the chat wire's response_format asking for JSON that
// matches the schema (strict where the server supports it).
func (s *Schema) ResponseFormat() json.RawMessage {
	b, _ := json.Marshal(map[string]any{
		"type": "json_schema",
		"json_schema": map[string]any{
			"name":   "answer",
			"strict": true,
			"schema": s.raw,
		},
	})
	return b
}

// Validate checks an answer: one JSON document that matches the schema.
// The error names the first violation.
func (s *Schema) Validate(answer string) error {
	text := strings.TrimSpace(answer)
	if text == "" {
		return errors.New("the answer is empty, not a JSON document")
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("the answer is not JSON: %v", err)
	}
	if dec.InputOffset() != int64(len(text)) {
		return errors.New("the answer holds more than one JSON document")
	}
	if err := s.resolved.Validate(v); err != nil {
		return fmt.Errorf("the answer does not match the schema: %v", err)
	}
	return nil
}
