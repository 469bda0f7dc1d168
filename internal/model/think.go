package model

import "strings"

// The tags a reasoning model writes around its thinking when the server
// does not take it out of the content (llama-server without a reasoning
// parser, some Ollama models).
const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// thinkSplitter takes a <think>…</think> block that opens the content out
// of the answer, as the content arrives in pieces. It holds back only what
// cannot be told yet — leading blanks, a prefix of "<think>", the tail of
// the thinking that may be the start of "</think>" — so an answer streams
// as it comes.
type thinkSplitter struct {
	state   int // one of the states below
	pending strings.Builder
}

const (
	thinkStart  = iota // nothing but blanks so far
	thinkInside        // inside the block
	thinkAfter         // after the block: blanks before the answer are dropped
	thinkAnswer        // the answer: passed through
)

// feed takes the next piece of content and returns what of it is reasoning
// and what is answer.
func (s *thinkSplitter) feed(delta string) (reasoning, answer string) {
	switch s.state {
	case thinkAnswer:
		return "", delta
	case thinkStart:
		s.pending.WriteString(delta)
		buf := s.pending.String()
		t := strings.TrimLeft(buf, " \t\r\n")
		switch {
		case t == "" || (len(t) < len(thinkOpen) && strings.HasPrefix(thinkOpen, t)):
			return "", "" // cannot tell yet
		case strings.HasPrefix(t, thinkOpen):
			s.pending.Reset()
			s.state = thinkInside
			return s.feed(t[len(thinkOpen):])
		}
		s.pending.Reset()
		s.state = thinkAnswer
		return "", buf
	case thinkInside:
		s.pending.WriteString(delta)
		buf := s.pending.String()
		if i := strings.Index(buf, thinkClose); i >= 0 {
			s.pending.Reset()
			s.state = thinkAfter
			_, a := s.feed(buf[i+len(thinkClose):])
			return buf[:i], a
		}
		// Keep what may be the start of the closing tag.
		keep := 0
		for k := len(thinkClose) - 1; k > 0; k-- {
			if strings.HasSuffix(buf, thinkClose[:k]) {
				keep = k
				break
			}
		}
		s.pending.Reset()
		s.pending.WriteString(buf[len(buf)-keep:])
		return buf[:len(buf)-keep], ""
	case thinkAfter:
		t := strings.TrimLeft(delta, " \t\r\n")
		if t == "" {
			return "", ""
		}
		s.state = thinkAnswer
		return "", t
	}
	return "", delta
}

// flush ends the content: what was held back is answer (blanks, or a
// start that turned out not to be a tag), or reasoning (a block never
// closed: the model was still thinking).
func (s *thinkSplitter) flush() (reasoning, answer string) {
	buf := s.pending.String()
	s.pending.Reset()
	switch s.state {
	case thinkStart:
		if strings.TrimSpace(buf) == "" {
			return "", ""
		}
		return "", buf
	case thinkInside:
		return buf, ""
	}
	return "", ""
}

// splitThink is thinkSplitter for a whole content at once.
func splitThink(content string) (reasoning, answer string) {
	var s thinkSplitter
	r, a := s.feed(content)
	r2, a2 := s.flush()
	return r + r2, a + a2
}
