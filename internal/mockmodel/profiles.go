package mockmodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"
)

// Profiles make the scripted model write chat completions the way one real
// server does, byte for byte: the chunks of a stream (first chunk, text,
// reasoning and tool-call deltas, final chunk, usage, [DONE]), a whole
// reply, error bodies and statuses, and which histories the server refuses.
// Each shape names the file of the server's source it comes from; LM
// Studio's server is not open source, so its profile follows its
// documentation and replies captured in public bug reports, as named.
//
// The empty profile is mockmodel's own generic stream (llama-server-like
// pieces in Go's compact JSON), which the older scripts use.
var profiles = map[string]*profile{
	"ollama":   ollamaProfile,
	"llamacpp": llamacppProfile,
	"vllm":     vllmProfile,
	"lmstudio": lmstudioProfile,
}

// ProfileNames lists the profiles a Script may name.
func ProfileNames() []string { return []string{"ollama", "llamacpp", "vllm", "lmstudio"} }

// profile is one server's way of writing.
type profile struct {
	name string
	// streamType is the Content-Type of a stream.
	streamType string
	// chunks renders a reply as the payloads of its "data:" events, in
	// order, [DONE] excluded.
	chunks func(a *answer) [][]byte
	// whole renders a non-streamed reply: Content-Type and body.
	whole func(a *answer) (string, []byte)
	// errorBody renders an error answer: Content-Type and body.
	errorBody func(status int, msg string, a *answer) (string, []byte)
	// serverError is the status and message of a scripted serverError of
	// this server, or ok false when the server has no such answer.
	serverError func(kind string, a *answer) (status int, msg string, ok bool)
	// refuse is the server's check of a request's history: the status and
	// message it answers, or 0 when it accepts the request.
	refuse func(msgs []historyMessage) (int, string)
	// models renders GET /v1/models: Content-Type and body.
	models func(ms []Model, created int64) (string, []byte)
	// show renders Ollama's POST /api/show for a model it has; nil for
	// the servers without that API.
	show func(m Model, created int64) (string, []byte)
	// noTools is the answer to a request offering tools to a model whose
	// template takes none; nil when the server has no such answer.
	noTools func(model string) (int, string)
	// anyModel: the server serves its one model whatever name a request
	// gives (llama-server); the others answer a model not in the script's
	// models with their modelNotFound error.
	anyModel bool
	// cutsPrompt: a prompt longer than the model's window is cut to it
	// silently (Ollama) rather than refused.
	cutsPrompt bool
	// died, when set, is the last chunk of a stream whose generation died
	// in its middle, after which the server ends the stream normally
	// (Ollama); nil: the connection drops.
	died func(a *answer) []byte
}

// historyMessage is a message of a request as the profiles check it.
type historyMessage struct {
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	ToolCallID *string `json:"tool_call_id"`
}

// The kinds of piece a reply is streamed in.
const (
	pieceReasoning = iota
	pieceText
	pieceCallHead // the call's id and name (and no arguments)
	pieceCallArgs // a fragment of the call's arguments
)

type piece struct {
	kind int
	text string
	call int
}

// pieces cuts a reply into the deltas a server streams: reasoning (in its
// field, or in <think> tags in the content), text, then each tool call as
// its head and fragments of its arguments.
func (a *answer) pieces() []piece {
	var out []piece
	content := a.text
	if a.reasoning != "" {
		if a.reply.ThinkTags {
			content = "<think>\n" + a.reasoning + "\n</think>\n\n" + a.text
		} else {
			for _, p := range splitRunes(a.reasoning, textPieceRunes) {
				out = append(out, piece{kind: pieceReasoning, text: p})
			}
		}
	}
	for _, p := range splitRunes(content, a.reply.textPiece()) {
		out = append(out, piece{kind: pieceText, text: p})
	}
	for i, c := range a.calls {
		out = append(out, piece{kind: pieceCallHead, call: i})
		for _, p := range splitBytes(c.Function.Arguments, argsPieceBytes) {
			out = append(out, piece{kind: pieceCallArgs, call: i, text: p})
		}
	}
	return out
}

// token is a reproducible pseudo-random string of n characters from
// alphabet, for ids that look like a server's.
func token(seed string, n int, alphabet string) string {
	h := fnv.New64a()
	h.Write([]byte(seed))
	x := h.Sum64()
	var b strings.Builder
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b.WriteByte(alphabet[x%uint64(len(alphabet))])
	}
	return b.String()
}

const (
	alnum    = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lowalnum = "0123456789abcdefghijklmnopqrstuvwxyz"
	hexdig   = "0123456789abcdef"
	digits   = "0123456789"
)

// goJSON marshals v with Go's encoding/json as Ollama does (HTML escaping
// on: "<think>" goes out as "\u003cthink\u003e").
func goJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("mockmodel: " + err.Error())
	}
	return b
}

// ---------------------------------------------------------------------------
// Ollama: openai/openai.go (ChatCompletionChunk, ChunkChoice, Message,
// ToolCall, ToChunk, ToChatCompletion, NewError, FromChatRequest) and
// middleware/openai.go (ChatWriter.writeResponse: one "data: %s\n\n" per
// chunk marshalled by encoding/json, the usage chunk as a copy of the last
// chunk with empty choices, "data: [DONE]\n\n"; writeError). Tool calls
// arrive whole, all the calls parsed from one piece of output in one chunk
// (ToChunk's ToToolCalls, each with its index); reasoning is the delta's
// "reasoning"; every delta carries role and content. As of v0.17.4, the
// version measured against mm (design.md): writeError types every
// handler's error api_error (it passes 500 to NewError whatever the
// status; from v0.18.0 on it passes the response's status, so a 404 is
// not_found_error and a 400 invalid_request_error) and sets Content-Type
// application/json; only the middleware's own validation errors
// (AbortWithStatusJSON, before the ChatWriter) are invalid_request_error,
// written by gin as application/json; charset=utf-8 without a newline.
// server/routes.go: a model without a manifest is 404 "model 'x' not
// found" (GetModel); "try pulling it first" is handleScheduleError's, for
// a manifest whose blob is missing; a model whose template lacks tools is
// 400 "<name> does not support tools" (CheckCapabilities; Ollama writes the
// full name, with its registry's host and the library/ namespace, which
// the profile leaves out); a runner that dies mid-stream is a gin.H error
// written into the open stream, which the ChatWriter turns into an empty
// chunk (model "", finish_reason null), and the stream ends without
// [DONE] (streamResponse).

type ollamaToolCall struct {
	ID       string `json:"id"`
	Index    int    `json:"index"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type ollamaMessage struct {
	Role      string           `json:"role"`
	Content   any              `json:"content"`
	Reasoning string           `json:"reasoning,omitempty"`
	ToolCalls []ollamaToolCall `json:"tool_calls,omitempty"`
}

type ollamaChunkChoice struct {
	Index        int           `json:"index"`
	Delta        ollamaMessage `json:"delta"`
	FinishReason *string       `json:"finish_reason"`
}

type ollamaChunk struct {
	ID                string              `json:"id"`
	Object            string              `json:"object"`
	Created           int64               `json:"created"`
	Model             string              `json:"model"`
	SystemFingerprint string              `json:"system_fingerprint"`
	Choices           []ollamaChunkChoice `json:"choices"`
	Usage             *usage              `json:"usage,omitempty"`
}

func ollamaID(a *answer) string { return "chatcmpl-" + strconv.Itoa(a.n*37%999) }

func ollamaCall(a *answer, i int) ollamaToolCall {
	c := a.calls[i]
	id := a.reply.ToolCalls[i].ID
	if id == "" {
		id = "call_" + token("ollama-call"+strconv.Itoa(a.n)+"-"+strconv.Itoa(i), 8, lowalnum)
	}
	tc := ollamaToolCall{ID: id, Index: i, Type: "function"}
	tc.Function.Name, tc.Function.Arguments = c.Function.Name, c.Function.Arguments
	return tc
}

// ollamaCalls is every call of the reply, as the one piece of output the
// model wrote them in.
func ollamaCalls(a *answer) []ollamaToolCall {
	var out []ollamaToolCall
	for i := range a.calls {
		out = append(out, ollamaCall(a, i))
	}
	return out
}

// ollamaEncode is json.NewEncoder(w).Encode: HTML escaped, with a newline.
func ollamaEncode(v any) []byte {
	var b bytes.Buffer
	json.NewEncoder(&b).Encode(v)
	return b.Bytes()
}

var ollamaProfile = &profile{
	name:       "ollama",
	streamType: "text/event-stream",
	chunks: func(a *answer) [][]byte {
		chunk := func(d ollamaMessage, finish *string) ollamaChunk {
			d.Role = "assistant"
			if d.Content == nil {
				d.Content = ""
			}
			return ollamaChunk{ID: ollamaID(a), Object: "chat.completion.chunk", Created: a.created, Model: a.model,
				SystemFingerprint: "fp_ollama", Choices: []ollamaChunkChoice{{Delta: d, FinishReason: finish}}}
		}
		var out [][]byte
		for _, p := range a.pieces() {
			switch p.kind {
			case pieceReasoning:
				out = append(out, goJSON(chunk(ollamaMessage{Reasoning: p.text}, nil)))
			case pieceText:
				out = append(out, goJSON(chunk(ollamaMessage{Content: p.text}, nil)))
			case pieceCallHead:
				if p.call == 0 {
					out = append(out, goJSON(chunk(ollamaMessage{ToolCalls: ollamaCalls(a)}, nil)))
				}
			}
		}
		finish := a.finish
		last := chunk(ollamaMessage{}, &finish)
		out = append(out, goJSON(last))
		if a.includeUsage {
			u := a.usage
			last.Usage, last.Choices = &u, []ollamaChunkChoice{}
			out = append(out, goJSON(last))
		}
		return out
	},
	whole: func(a *answer) (string, []byte) {
		msg := ollamaMessage{Role: "assistant", Content: a.text, ToolCalls: ollamaCalls(a)}
		msg.Reasoning = a.reasoning
		if a.reply.ThinkTags && a.reasoning != "" {
			msg.Content, msg.Reasoning = "<think>\n"+a.reasoning+"\n</think>\n\n"+a.text, ""
		}
		finish := a.finish
		var b bytes.Buffer
		enc := json.NewEncoder(&b) // json.NewEncoder(w).Encode: escaped, with a newline
		enc.Encode(struct {
			ID                string `json:"id"`
			Object            string `json:"object"`
			Created           int64  `json:"created"`
			Model             string `json:"model"`
			SystemFingerprint string `json:"system_fingerprint"`
			Choices           []struct {
				Index        int           `json:"index"`
				Message      ollamaMessage `json:"message"`
				FinishReason *string       `json:"finish_reason"`
			} `json:"choices"`
			Usage usage `json:"usage,omitempty"`
		}{ollamaID(a), "chat.completion", a.created, a.model, "fp_ollama", []struct {
			Index        int           `json:"index"`
			Message      ollamaMessage `json:"message"`
			FinishReason *string       `json:"finish_reason"`
		}{{0, msg, &finish}}, a.usage})
		// gin's render sets "; charset=utf-8", then the ChatWriter sets
		// its own Content-Type before the first byte goes out.
		return "application/json", b.Bytes()
	},
	errorBody: func(status int, msg string, a *answer) (string, []byte) {
		type apiError struct {
			Message string  `json:"message"`
			Type    string  `json:"type"`
			Param   any     `json:"param"`
			Code    *string `json:"code"`
		}
		type body struct {
			Error apiError `json:"error"`
		}
		if a == nil {
			// The middleware's validation (refuse): openai.NewError(400)
			// through gin's AbortWithStatusJSON.
			return "application/json; charset=utf-8", goJSON(body{apiError{Message: msg, Type: "invalid_request_error"}})
		}
		// A handler's error, through the ChatWriter's writeError.
		return "application/json", ollamaEncode(body{apiError{Message: msg, Type: "api_error"}})
	},
	models: func(ms []Model, created int64) (string, []byte) {
		// ListWriter: openai.ToListCompletion, owned_by the name's namespace.
		var data []listedModel
		for _, m := range ms {
			owner := "library"
			if i := strings.LastIndex(m.ID, "/"); i >= 0 {
				owner = m.ID[:i]
				if j := strings.LastIndex(owner, "/"); j >= 0 {
					owner = owner[j+1:]
				}
			}
			data = append(data, listedModel{m.ID, "model", created, owner})
		}
		return "application/json", ollamaEncode(modelList{"list", data})
	},
	show: func(m Model, created int64) (string, []byte) {
		// api.ShowResponse (the parts mm reads and a few beside them),
		// written by gin's c.JSON: keys of model_info sorted as Go writes a
		// map, capabilities as the model's template allows.
		arch := cmpOr(m.Arch, "llama")
		info := map[string]any{"general.architecture": arch, "general.parameter_count": 8190735360}
		if m.ContextLength > 0 {
			info[arch+".context_length"] = m.ContextLength
		}
		caps := []string{"completion"}
		if !m.NoTools {
			caps = append(caps, "tools")
		}
		params := ""
		if m.Window > 0 {
			params = "num_ctx                        " + strconv.Itoa(m.Window)
		}
		return "application/json; charset=utf-8", goJSON(struct {
			Parameters   string         `json:"parameters,omitempty"`
			Template     string         `json:"template"`
			Details      map[string]any `json:"details"`
			ModelInfo    map[string]any `json:"model_info"`
			Capabilities []string       `json:"capabilities"`
			ModifiedAt   string         `json:"modified_at"`
		}{params, "{{ .Prompt }}", map[string]any{"format": "gguf", "family": arch, "parameter_size": "8.2B", "quantization_level": "Q4_K_M"},
			info, caps, time.Unix(created, 0).UTC().Format(time.RFC3339Nano)})
	},
	noTools: func(model string) (int, string) {
		return 400, model + " does not support tools"
	},
	cutsPrompt: true,
	died: func(a *answer) []byte {
		// The runner's error reaches the ChatWriter as a chat response it
		// cannot read: every field empty.
		return goJSON(ollamaChunk{ID: ollamaID(a), Object: "chat.completion.chunk", Created: a.created,
			SystemFingerprint: "fp_ollama", Choices: []ollamaChunkChoice{{Delta: ollamaMessage{Role: "assistant", Content: ""}}}})
	},
	serverError: func(kind string, a *answer) (int, string, bool) {
		switch kind {
		case "busy", "loading":
			// server/sched.go ErrMaxQueue, answered 503 by server/routes.go;
			// Ollama does not answer while it loads a model: it waits.
			return 503, "server busy, please try again.  maximum pending requests exceeded", true
		case "modelNotFound":
			// server/routes.go ChatHandler, GetModel: no manifest
			return 404, "model '" + a.model + "' not found", true
		case "unauthorized":
			return 401, "unauthorized", true
		}
		return 0, "", false // Ollama cuts a prompt longer than num_ctx rather than refusing it
	},
	refuse: func(msgs []historyMessage) (int, string) {
		// openai.FromChatRequest: content a string or an array of parts, null
		// only beside tool calls; each call's arguments must decode into an
		// object (api.ToolCallFunctionArguments, a map).
		if len(msgs) == 0 {
			return 400, "[] is too short - 'messages'"
		}
		for _, m := range msgs {
			c := bytes.TrimSpace(m.Content)
			if len(c) == 0 || string(c) == "null" {
				if m.ToolCalls == nil {
					return 400, "invalid message content type: <nil>"
				}
			}
			for _, tc := range m.ToolCalls {
				var s string
				var args map[string]any
				if json.Unmarshal(tc.Function.Arguments, &s) != nil || json.Unmarshal([]byte(s), &args) != nil {
					return 400, "invalid tool call arguments"
				}
			}
		}
		return 0, ""
	},
}

// ---------------------------------------------------------------------------
// llama.cpp: tools/server/server-task.cpp
// (server_task_result_cmpl_partial::to_json_oaicompat_chat_stream: the
// first chunk's delta {"role":"assistant","content":null};
// server_task_result_cmpl_final::to_json_oaicompat_chat_stream: the final
// chunk with an empty delta, then with include_usage a chunk with empty
// choices and usage, timings on the last one), common/chat.cpp
// (common_chat_msg_diff_to_json_oaicompat: reasoning_content, content,
// tool_calls deltas — the call's index, id, type and name first, then
// arguments alone), tools/server/server-common.cpp (format_oai_sse,
// format_error_response, safe_json_to_str: nlohmann ordered_json dumped
// compact, UTF-8 as is). Errors are {"error":{"code","message","type"}}.
// Without --jinja's reasoning parser (--reasoning-format none) the <think>
// block stays in the content.

const llamaFingerprint = "b6881-8b11deea4"

func llamaID(a *answer) string { return "chatcmpl-" + token("llama"+strconv.Itoa(a.n), 32, alnum) }

func llamaCallID(a *answer, i int) string {
	if id := a.reply.ToolCalls[i].ID; id != "" {
		return id
	}
	return token("llama-call"+strconv.Itoa(a.n)+"-"+strconv.Itoa(i), 32, alnum)
}

func llamaUsage(a *answer) obj {
	return obj{{"completion_tokens", a.usage.CompletionTokens}, {"prompt_tokens", a.usage.PromptTokens},
		{"total_tokens", a.usage.TotalTokens}, {"prompt_tokens_details", obj{{"cached_tokens", 0}}}}
}

func llamaTimings(a *answer) obj {
	p, c := a.usage.PromptTokens, a.usage.CompletionTokens
	pms, cms := float64(p)*0.25, float64(c)*12.5
	return obj{{"cache_n", 0}, {"prompt_n", p}, {"prompt_ms", pms}, {"prompt_per_token_ms", pms / float64(max(p, 1))},
		{"prompt_per_second", 1e3 / pms * float64(p)}, {"predicted_n", c}, {"predicted_ms", cms},
		{"predicted_per_token_ms", cms / float64(max(c, 1))}, {"predicted_per_second", 1e3 / cms * float64(c)}}
}

var llamacppProfile = &profile{
	name:       "llamacpp",
	streamType: "text/event-stream",
	models:     llamaModels,
	anyModel:   true,
	chunks: func(a *answer) [][]byte {
		chunk := func(finish any, delta any) obj {
			return obj{{"choices", arr{obj{{"finish_reason", finish}, {"index", 0}, {"delta", delta}}}},
				{"created", a.created}, {"id", llamaID(a)}, {"model", a.model},
				{"system_fingerprint", llamaFingerprint}, {"object", "chat.completion.chunk"}}
		}
		out := [][]byte{plainJSON(chunk(null, obj{{"role", "assistant"}, {"content", null}}))}
		for _, p := range a.pieces() {
			var d obj
			switch p.kind {
			case pieceReasoning:
				d = obj{{"reasoning_content", p.text}}
			case pieceText:
				d = obj{{"content", p.text}}
			case pieceCallHead:
				d = obj{{"tool_calls", arr{obj{{"index", p.call}, {"id", llamaCallID(a, p.call)}, {"type", "function"},
					{"function", obj{{"name", a.calls[p.call].Function.Name}, {"arguments", ""}}}}}}}
			case pieceCallArgs:
				d = obj{{"tool_calls", arr{obj{{"index", p.call}, {"function", obj{{"arguments", p.text}}}}}}}
			}
			out = append(out, plainJSON(chunk(null, d)))
		}
		final := chunk(a.finish, obj{})
		if a.includeUsage {
			out = append(out, plainJSON(final))
			final = obj{{"choices", arr{}}, {"created", a.created}, {"id", llamaID(a)}, {"model", a.model},
				{"system_fingerprint", llamaFingerprint}, {"object", "chat.completion.chunk"}, {"usage", llamaUsage(a)}}
		}
		final = append(final, kv{"timings", llamaTimings(a)})
		return append(out, plainJSON(final))
	},
	whole: func(a *answer) (string, []byte) {
		content := any(a.text)
		msg := obj{{"role", "assistant"}}
		if a.reasoning != "" && a.reply.ThinkTags {
			content = "<think>\n" + a.reasoning + "\n</think>\n\n" + a.text
		} else if a.reasoning != "" {
			msg = append(msg, kv{"reasoning_content", a.reasoning})
		}
		if a.text == "" && len(a.calls) > 0 {
			content = null
		}
		msg = append(msg, kv{"content", content})
		if len(a.calls) > 0 {
			var calls arr
			for i, c := range a.calls {
				calls = append(calls, obj{{"type", "function"}, {"function", obj{{"name", c.Function.Name}, {"arguments", c.Function.Arguments}}},
					{"id", llamaCallID(a, i)}})
			}
			msg = append(msg, kv{"tool_calls", calls})
		}
		body := obj{{"choices", arr{obj{{"finish_reason", a.finish}, {"index", 0}, {"message", msg}}}},
			{"created", a.created}, {"model", a.model}, {"system_fingerprint", llamaFingerprint},
			{"object", "chat.completion"}, {"usage", llamaUsage(a)}, {"id", llamaID(a)}, {"timings", llamaTimings(a)}}
		return "application/json; charset=utf-8", plainJSON(body)
	},
	errorBody: func(status int, msg string, a *answer) (string, []byte) {
		e := llamaError(status, msg)
		if a != nil && a.reply.ServerError == "contextExceeded" {
			// server_task_result_error::to_json: ERROR_TYPE_EXCEED_CONTEXT_SIZE
			// is its own type, with the two counts beside it.
			e[2].v = "exceed_context_size_error"
			e = append(e, kv{"n_prompt_tokens", a.usage.PromptTokens}, kv{"n_ctx", a.contextSize()})
		}
		return "application/json; charset=utf-8", plainJSON(obj{{"error", e}})
	},
	serverError: func(kind string, a *answer) (int, string, bool) {
		switch kind {
		case "loading", "busy":
			// server-http.cpp: "Loading model" (unavailable_error) until the model is loaded
			return 503, "Loading model", true
		case "modelNotFound":
			// server-models.cpp, router mode (several models)
			return 404, "model '" + a.model + "' not found", true
		case "contextExceeded":
			// server-context.cpp: exceed_context_size_error
			return 400, fmt.Sprintf("request (%d tokens) exceeds the available context size (%d tokens), try increasing it",
				a.usage.PromptTokens, a.contextSize()), true
		case "unauthorized":
			return 401, "Invalid API Key", true
		}
		return 0, "", false
	},
	refuse: func(msgs []historyMessage) (int, string) {
		// Chat templates raise on histories they cannot render; Mistral's
		// (and Gemma's, without tools) want roles to alternate. The
		// exception is answered 500 by the server's exception wrapper.
		prev := ""
		pending := 0
		for _, m := range msgs {
			switch m.Role {
			case "system":
				if prev != "" {
					return 500, "System message must be at the beginning."
				}
			case "user":
				if prev == "user" || pending > 0 {
					return 500, "After the optional system message, conversation roles must alternate user and assistant roles except for tool calls and results."
				}
			case "assistant":
				if prev == "assistant" && pending == 0 || prev == "" || prev == "system" {
					return 500, "After the optional system message, conversation roles must alternate user and assistant roles except for tool calls and results."
				}
				for _, tc := range m.ToolCalls {
					var s string
					if json.Unmarshal(tc.Function.Arguments, &s) != nil || !json.Valid([]byte(s)) {
						return 500, "Failed to parse tool call arguments as JSON"
					}
				}
				pending = len(m.ToolCalls)
			case "tool":
				if pending == 0 {
					return 500, "Tool call results must follow a tool call."
				}
				pending--
			}
			prev = m.Role
		}
		return 0, ""
	},
}

// llamaModels is llama-server's GET /v1/models (server-context.cpp): the
// Ollama-style "models" list beside the OpenAI "data" list, whose meta
// says the model's training context (n_ctx_train), not the one it runs
// with (-c).
func llamaModels(ms []Model, created int64) (string, []byte) {
	var models, data arr
	for _, m := range ms {
		models = append(models, obj{{"name", m.ID}, {"model", m.ID}, {"modified_at", ""}, {"size", ""}, {"digest", ""},
			{"type", "model"}, {"description", ""}, {"tags", arr{""}}, {"capabilities", arr{"completion"}},
			{"parameters", ""}, {"details", obj{{"parent_model", ""}, {"format", "gguf"}, {"family", ""}, {"families", arr{""}},
				{"parameter_size", ""}, {"quantization_level", ""}}}})
		meta := obj{{"vocab_type", 2}, {"n_vocab", 151936}}
		if m.ContextLength > 0 {
			meta = append(meta, kv{"n_ctx_train", m.ContextLength})
		}
		meta = append(meta, kv{"n_embd", 4096}, kv{"n_params", 8190735360}, kv{"size", 5027783488})
		data = append(data, obj{{"id", m.ID}, {"object", "model"}, {"created", created}, {"owned_by", "llamacpp"}, {"meta", meta}})
	}
	return "application/json; charset=utf-8", plainJSON(obj{{"models", models}, {"object", "list"}, {"data", data}})
}

// llamaError is format_error_response's object for status.
func llamaError(status int, msg string) obj {
	typ := "server_error"
	switch status {
	case 400:
		typ = "invalid_request_error"
	case 401:
		typ = "authentication_error"
	case 403:
		typ = "permission_error"
	case 404:
		typ = "not_found_error"
	case 501:
		typ = "not_supported_error"
	case 503:
		typ = "unavailable_error"
	}
	return obj{{"code", status}, {"message", msg}, {"type", typ}}
}

func cmpOrInt(a, b int) any {
	if a > 0 {
		return a
	}
	if b > 0 {
		return b
	}
	return null
}

// contextSize is the model's context a contextExceeded error reports: the
// script's window for the model, else just under the prompt.
func (a *answer) contextSize() int {
	if a.window > 0 {
		return a.window
	}
	return max(a.usage.PromptTokens/2, 8)
}

// ---------------------------------------------------------------------------
// vLLM: vllm/entrypoints/openai/chat_completion/serving.py
// (chat_completion_stream_generator: a first chunk per choice with
// DeltaMessage(role="assistant", content=""), then DeltaMessage deltas,
// the last with finish_reason and stop_reason, a usage chunk with empty
// choices dumped with exclude_unset and exclude_none, "data: [DONE]"),
// vllm/entrypoints/openai/engine/protocol.py (field order of
// ChatCompletionStreamResponse, ChatCompletionResponseStreamChoice,
// DeltaMessage with "reasoning", DeltaToolCall, UsageInfo, ErrorResponse),
// tool parsers (hermes: the call's id, type, index and name first, then
// arguments alone). A whole reply sends content null beside tool calls.

func vllmID(a *answer) string { return "chatcmpl-" + token("vllm"+strconv.Itoa(a.n), 32, hexdig) }

func vllmCallID(a *answer, i int) string {
	if id := a.reply.ToolCalls[i].ID; id != "" {
		return id
	}
	return "chatcmpl-tool-" + token("vllm-call"+strconv.Itoa(a.n)+"-"+strconv.Itoa(i), 32, hexdig)
}

var vllmProfile = &profile{
	name:       "vllm",
	streamType: "text/event-stream; charset=utf-8",
	models: func(ms []Model, created int64) (string, []byte) {
		// engine/serving_models.py show_available_models: ModelCard with
		// max_model_len, the context it serves.
		var data arr
		for _, m := range ms {
			data = append(data, obj{{"id", m.ID}, {"object", "model"}, {"created", created}, {"owned_by", "vllm"},
				{"root", m.ID}, {"parent", null}, {"max_model_len", cmpOrInt(m.Window, m.ContextLength)},
				{"permission", arr{obj{{"id", "modelperm-" + token("perm"+m.ID, 32, hexdig)}, {"object", "model_permission"},
					{"created", created}, {"allow_create_engine", false}, {"allow_sampling", true}, {"allow_logprobs", true},
					{"allow_search_indices", false}, {"allow_view", true}, {"allow_fine_tuning", false},
					{"organization", "*"}, {"group", null}, {"is_blocking", false}}}}})
		}
		return "application/json", plainJSON(obj{{"object", "list"}, {"data", data}})
	},
	chunks: func(a *answer) [][]byte {
		chunk := func(choice obj) obj {
			return obj{{"id", vllmID(a)}, {"object", "chat.completion.chunk"}, {"created", a.created}, {"model", a.model},
				{"choices", arr{choice}}}
		}
		delta := func(d obj) obj {
			return obj{{"index", 0}, {"delta", d}, {"logprobs", null}, {"finish_reason", null}}
		}
		out := [][]byte{plainJSON(chunk(delta(obj{{"role", "assistant"}, {"content", ""}})))}
		for _, p := range a.pieces() {
			var d obj
			switch p.kind {
			case pieceReasoning:
				d = obj{{"reasoning", p.text}}
			case pieceText:
				d = obj{{"content", p.text}}
			case pieceCallHead:
				d = obj{{"tool_calls", arr{obj{{"id", vllmCallID(a, p.call)}, {"type", "function"}, {"index", p.call},
					{"function", obj{{"name", a.calls[p.call].Function.Name}}}}}}}
			case pieceCallArgs:
				d = obj{{"tool_calls", arr{obj{{"index", p.call}, {"function", obj{{"arguments", p.text}}}}}}}
			}
			out = append(out, plainJSON(chunk(delta(d))))
		}
		out = append(out, plainJSON(chunk(obj{{"index", 0}, {"delta", obj{{"content", ""}}}, {"logprobs", null},
			{"finish_reason", a.finish}, {"stop_reason", null}})))
		if a.includeUsage {
			out = append(out, plainJSON(obj{{"id", vllmID(a)}, {"object", "chat.completion.chunk"}, {"created", a.created},
				{"model", a.model}, {"choices", arr{}}, {"usage", obj{{"prompt_tokens", a.usage.PromptTokens},
					{"total_tokens", a.usage.TotalTokens}, {"completion_tokens", a.usage.CompletionTokens}}}}))
		}
		return out
	},
	whole: func(a *answer) (string, []byte) {
		content := any(a.text)
		reasoning := any(null)
		if a.reasoning != "" && a.reply.ThinkTags {
			content = "<think>\n" + a.reasoning + "\n</think>\n\n" + a.text
		} else if a.reasoning != "" {
			reasoning = a.reasoning
		}
		calls := arr{}
		for i, c := range a.calls {
			calls = append(calls, obj{{"id", vllmCallID(a, i)}, {"type", "function"},
				{"function", obj{{"name", c.Function.Name}, {"arguments", c.Function.Arguments}}}})
		}
		if len(a.calls) > 0 && a.text == "" {
			content = null // content null beside tool calls
		}
		msg := obj{{"role", "assistant"}, {"content", content}, {"refusal", null}, {"annotations", null}, {"audio", null},
			{"function_call", null}, {"tool_calls", calls}, {"reasoning", reasoning}}
		body := obj{{"id", vllmID(a)}, {"object", "chat.completion"}, {"created", a.created}, {"model", a.model},
			{"choices", arr{obj{{"index", 0}, {"message", msg}, {"logprobs", null}, {"finish_reason", a.finish}, {"stop_reason", null}}}},
			{"service_tier", null}, {"system_fingerprint", null},
			{"usage", obj{{"prompt_tokens", a.usage.PromptTokens}, {"total_tokens", a.usage.TotalTokens},
				{"completion_tokens", a.usage.CompletionTokens}, {"prompt_tokens_details", null}}},
			{"prompt_logprobs", null}, {"kv_transfer_params", null}}
		return "application/json", plainJSON(body)
	},
	errorBody: func(status int, msg string, a *answer) (string, []byte) {
		if status == 401 {
			// api_server.py's authentication middleware
			return "application/json", plainJSON(obj{{"error", "Unauthorized"}})
		}
		typ := "InternalServerError"
		switch status {
		case 400:
			typ = "BadRequestError"
		case 404:
			typ = "NotFoundError"
		case 429:
			typ = "TooManyRequests"
		case 503:
			typ = "ServiceUnavailableError"
		}
		return "application/json", plainJSON(obj{{"error", obj{{"message", msg}, {"type", typ}, {"param", null}, {"code", status}}}})
	},
	serverError: func(kind string, a *answer) (int, string, bool) {
		switch kind {
		case "modelNotFound":
			// engine/serving.py _check_model
			return 404, "The model `" + a.model + "` does not exist.", true
		case "contextExceeded":
			// engine/serving.py _validate_input
			return 400, fmt.Sprintf("This model's maximum context length is %d tokens. However, your request has %d input tokens. Please reduce the length of the input messages.",
				a.contextSize(), a.usage.PromptTokens), true
		case "busy", "loading":
			return 503, "Service Unavailable", true
		case "unauthorized":
			return 401, "Unauthorized", true
		}
		return 0, "", false
	},
	refuse: func(msgs []historyMessage) (int, string) {
		// Pydantic validation of the request: a tool message needs its
		// tool_call_id; a tool call's arguments are a string.
		for i, m := range msgs {
			if m.Role == "tool" && (m.ToolCallID == nil || *m.ToolCallID == "") {
				return 400, fmt.Sprintf("1 validation error for ChatCompletionRequest messages.%d.tool_call_id Field required", i)
			}
			for _, tc := range m.ToolCalls {
				var s string
				if json.Unmarshal(tc.Function.Arguments, &s) != nil {
					return 400, fmt.Sprintf("1 validation error for ChatCompletionRequest messages.%d.tool_calls.function.arguments Input should be a valid string", i)
				}
			}
		}
		return 0, ""
	},
}

// ---------------------------------------------------------------------------
// LM Studio: its server is not open source. The shapes follow its
// documentation of the OpenAI-compatible endpoints (chat completions,
// tool use: calls streamed as the call's index, id, type and name, then
// arguments fragments; reasoning in "reasoning_content"), the model
// listing and the 404 captured in letta-ai/letta#1876 ("Model \"x\" not
// found. Please specify a valid model.", code model_not_found, written
// indented), lmstudio-ai/lmstudio-bug-tracker#619 for a whole reply, and
// #237 for a prompt longer than the loaded context (400, the error a
// string: "… context length of only N tokens …").
// JSON.stringify writes it: insertion order, UTF-8 as is.

func lmstudioID(a *answer) string { return "chatcmpl-" + token("lms"+strconv.Itoa(a.n), 21, lowalnum) }

func lmstudioCallID(a *answer, i int) string {
	if id := a.reply.ToolCalls[i].ID; id != "" {
		return id
	}
	return token("lms-call"+strconv.Itoa(a.n)+"-"+strconv.Itoa(i), 9, digits)
}

var lmstudioProfile = &profile{
	name:       "lmstudio",
	streamType: "text/event-stream",
	models: func(ms []Model, created int64) (string, []byte) {
		// Its documentation's GET /v1/models: ids only.
		var data arr
		for _, m := range ms {
			data = append(data, obj{{"id", m.ID}, {"object", "model"}, {"owned_by", "organization_owner"}})
		}
		return "application/json; charset=utf-8", indentJSON(obj{{"data", data}, {"object", "list"}}, "  ")
	},
	chunks: func(a *answer) [][]byte {
		chunk := func(d obj, finish any) []byte {
			return plainJSON(obj{{"id", lmstudioID(a)}, {"object", "chat.completion.chunk"}, {"created", a.created},
				{"model", a.model}, {"system_fingerprint", a.model},
				{"choices", arr{obj{{"index", 0}, {"delta", d}, {"logprobs", null}, {"finish_reason", finish}}}}})
		}
		out := [][]byte{chunk(obj{{"role", "assistant"}, {"content", ""}}, null)}
		for _, p := range a.pieces() {
			var d obj
			switch p.kind {
			case pieceReasoning:
				d = obj{{"reasoning_content", p.text}}
			case pieceText:
				d = obj{{"content", p.text}}
			case pieceCallHead:
				d = obj{{"tool_calls", arr{obj{{"index", p.call}, {"id", lmstudioCallID(a, p.call)}, {"type", "function"},
					{"function", obj{{"name", a.calls[p.call].Function.Name}, {"arguments", ""}}}}}}}
			case pieceCallArgs:
				d = obj{{"tool_calls", arr{obj{{"index", p.call}, {"type", "function"}, {"function", obj{{"arguments", p.text}}}}}}}
			}
			out = append(out, chunk(d, null))
		}
		out = append(out, chunk(obj{}, a.finish))
		if a.includeUsage {
			out = append(out, plainJSON(obj{{"id", lmstudioID(a)}, {"object", "chat.completion.chunk"}, {"created", a.created},
				{"model", a.model}, {"system_fingerprint", a.model}, {"choices", arr{}},
				{"usage", obj{{"prompt_tokens", a.usage.PromptTokens}, {"completion_tokens", a.usage.CompletionTokens},
					{"total_tokens", a.usage.TotalTokens}}}}))
		}
		return out
	},
	whole: func(a *answer) (string, []byte) {
		msg := obj{{"role", "assistant"}, {"content", a.text}}
		if a.reasoning != "" && a.reply.ThinkTags {
			msg[1].v = "<think>\n" + a.reasoning + "\n</think>\n\n" + a.text
		} else if a.reasoning != "" {
			msg = append(msg, kv{"reasoning_content", a.reasoning})
		}
		if len(a.calls) > 0 {
			calls := arr{}
			for i, c := range a.calls {
				calls = append(calls, obj{{"id", lmstudioCallID(a, i)}, {"type", "function"},
					{"function", obj{{"name", c.Function.Name}, {"arguments", c.Function.Arguments}}}})
			}
			msg = append(msg, kv{"tool_calls", calls})
		}
		body := obj{{"id", lmstudioID(a)}, {"object", "chat.completion"}, {"created", a.created}, {"model", a.model},
			{"choices", arr{obj{{"index", 0}, {"logprobs", null}, {"finish_reason", a.finish}, {"message", msg}}}},
			{"usage", obj{{"prompt_tokens", a.usage.PromptTokens}, {"completion_tokens", a.usage.CompletionTokens},
				{"total_tokens", a.usage.TotalTokens}}},
			{"stats", obj{}}, {"system_fingerprint", a.model}}
		return "application/json; charset=utf-8", indentJSON(body, "  ")
	},
	errorBody: func(status int, msg string, a *answer) (string, []byte) {
		if a != nil && a.reply.ServerError == "contextExceeded" {
			return "application/json; charset=utf-8", indentJSON(obj{{"error", msg}}, "    ")
		}
		e := obj{{"message", msg}, {"type", "invalid_request_error"}}
		if a != nil && a.reply.ServerError == "modelNotFound" {
			e = append(e, kv{"param", "model"}, kv{"code", "model_not_found"})
		}
		return "application/json; charset=utf-8", indentJSON(obj{{"error", e}}, "    ")
	},
	serverError: func(kind string, a *answer) (int, string, bool) {
		switch kind {
		case "modelNotFound":
			return 404, "Model \"" + a.model + "\" not found. Please specify a valid model.\n\nYour models:\n\nqwen3-8b", true
		case "contextExceeded":
			// lmstudio-ai/lmstudio-bug-tracker#237 (0.3.x): the error is a string.
			return 400, fmt.Sprintf("<LM Studio error> Trying to keep the first %d tokens when context the overflows. However, the model is loaded with context length of only %d tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input. Error Data: n/a, Additional Data: n/a",
				a.usage.PromptTokens, a.contextSize()), true
		case "busy", "loading":
			return 503, "Model is loading", true
		case "unauthorized":
			return 401, "Unauthorized", true
		}
		return 0, "", false
	},
	refuse: func(msgs []historyMessage) (int, string) {
		// A tool message must answer a call of the assistant message before
		// it, as OpenAI's validation says.
		pending := map[string]bool{}
		for i, m := range msgs {
			switch m.Role {
			case "assistant":
				pending = map[string]bool{}
				for _, tc := range m.ToolCalls {
					pending[tc.ID] = true
				}
			case "tool":
				if m.ToolCallID == nil || !pending[*m.ToolCallID] {
					return 400, fmt.Sprintf("Invalid 'messages[%d]': messages with role 'tool' must be a response to a preceding message with 'tool_calls'.", i)
				}
			}
		}
		return 0, ""
	},
}
