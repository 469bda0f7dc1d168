package hooks

import "testing"

func TestUnescapeHTML(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"command":"a \u0026\u0026 b \u003e c \u003C d"}`, `{"command":"a && b > c < d"}`},
		{`{"command":"a \\u0026 b"}`, `{"command":"a \\u0026 b"}`},
		{`{"command":"\u00e9 \n \""}`, `{"command":"\u00e9 \n \""}`},
		{`{"x":1}`, `{"x":1}`},
		{`"\u00`, `"\u00`},
	} {
		if got := string(unescapeHTML([]byte(tc.in))); got != tc.want {
			t.Errorf("unescapeHTML(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
