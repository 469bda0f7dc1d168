package mockmodel

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The profiles write their JSON by hand, because what a client must cope
// with is each server's bytes: its key order (nlohmann's ordered_json in
// llama-server, pydantic's field order in vLLM, insertion order in LM
// Studio's JavaScript) and its string escaping (Go's encoding/json escapes
// <, > and & as \u003c…, the others write them as they are).

// kv is one member of an ordered JSON object.
type kv struct {
	k string
	v any
}

// obj is a JSON object whose members keep their order.
type obj []kv

// arr is a JSON array.
type arr []any

// rawJSON is written as it is.
type rawJSON []byte

// null is JSON's null.
type nullT struct{}

var null = nullT{}

// plainJSON writes v the way nlohmann::json::dump, pydantic-core and
// JavaScript's JSON.stringify do: compact, UTF-8 as it is, only '"', '\\'
// and control characters escaped.
func plainJSON(v any) []byte {
	var b bytes.Buffer
	writeJSONValue(&b, v, "", "")
	return b.Bytes()
}

// indentJSON is JSON.stringify(v, null, indent).
func indentJSON(v any, indent string) []byte {
	var b bytes.Buffer
	writeJSONValue(&b, v, indent, "")
	return b.Bytes()
}

func writeJSONValue(b *bytes.Buffer, v any, indent, prefix string) {
	nl := func(p string) {
		if indent != "" {
			b.WriteByte('\n')
			b.WriteString(p)
		}
	}
	sep := ":"
	if indent != "" {
		sep = ": "
	}
	switch v := v.(type) {
	case nil, nullT:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case int:
		b.WriteString(strconv.Itoa(v))
	case int64:
		b.WriteString(strconv.FormatInt(v, 10))
	case float64:
		// nlohmann and Python write a whole double with ".0".
		f := strconv.FormatFloat(v, 'g', -1, 64)
		if !strings.ContainsAny(f, ".eEn") {
			f += ".0"
		}
		b.WriteString(f)
	case string:
		writePlainString(b, v)
	case rawJSON:
		b.Write(v)
	case obj:
		if len(v) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, m := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			nl(prefix + indent)
			writePlainString(b, m.k)
			b.WriteString(sep)
			writeJSONValue(b, m.v, indent, prefix+indent)
		}
		nl(prefix)
		b.WriteByte('}')
	case arr:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			nl(prefix + indent)
			writeJSONValue(b, e, indent, prefix+indent)
		}
		nl(prefix)
		b.WriteByte(']')
	default:
		panic("mockmodel: no JSON form for a value of this type")
	}
}

// writePlainString escapes '"', '\\' and control characters (\b \f \n \r
// \t by name, the others as \u00xx), writes every other character as it
// is, and invalid UTF-8 as U+FFFD.
func writePlainString(b *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError && size == 1 {
			b.WriteString("\ufffd")
			s = s[1:]
			continue
		}
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hex[r>>4])
				b.WriteByte(hex[r&0xf])
			} else {
				b.WriteString(s[:size])
			}
		}
		s = s[size:]
	}
	b.WriteByte('"')
}
