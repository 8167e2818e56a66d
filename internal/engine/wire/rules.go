package wire

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/toolshelf/toolshelf/internal/engine/openai"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
)

// MaxDescription is OpenAI's limit on a function's description, in
// characters (Unicode code points), which the encoders and the checker
// share. The longest tool name is [toolname.MaxLen].
const MaxDescription = 1024

// A Rule is one thing a provider's API refuses that an SDK's types do not
// catch, with the provider's own words and what the library does about it:
// a deterministic transformation of the body (the prefix stays byte-stable)
// or a refusal before any bytes are built.
type Rule struct {
	// ID names the rule in checker reports ("description-length").
	ID string
	// Provider is the provider the rule belongs to.
	Provider string
	// Field is where in the body the rule applies.
	Field string
	// Limit is the rule, stated briefly.
	Limit string
	// Words are the provider's own words (documentation or error text).
	Words string
	// Source is where the rule is published or reported.
	Source string
	// Action is what toolshelf does about it.
	Action string
}

// rules is the rule book: per provider, in one place. docs/providers.md
// renders it (a test keeps the two equal).
var rules = []Rule{
	{"tool-name", OpenAIChat, "tools[].function.name", "^[a-zA-Z0-9_-]{1,64}$",
		"Must be a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum length of 64.",
		"https://platform.openai.com/docs/api-reference/chat/create",
		"A name outside the rule (an MCP tool over 64 characters with its prefix, or with a dot) gets a model-facing alias: readable prefix + 8 hex digits of SHA-256, mapped back on every call."},
	{"description-length", OpenAIChat, "tools[].function.description", "≤ 1,024 characters",
		"Invalid 'tools[N].function.description': string too long. Expected a string with maximum length 1024 (string_above_max_length)",
		"https://github.com/getsentry/sentry-mcp/issues/106",
		"tool_search's name index rides in the system message, not in its description. Any other description over the cap is cut at a sentence with a pointer; tool_search returns the full text with the schema."},
	{"unique-names", OpenAIChat, "tools[].function.name", "each name once",
		"(a call names its tool; two tools of one name cannot be told apart)", "https://platform.openai.com/docs/guides/function-calling",
		"The registry refuses duplicate names; aliases carry a hash of the full name."},
	{"schema-object", OpenAIChat, "tools[].function.parameters", `a JSON Schema object of "type": "object" (or no parameters at all)`,
		`Invalid schema for function 'json': schema must be a JSON Schema of 'type: "object"', got 'type: "None"'.`,
		"https://github.com/browserbase/stagehand/issues/1159",
		`The registry writes "type":"object" into a tool schema that has no type (its arguments are an object whatever the schema says) and refuses any other type or a type list.`},
	{"tool-count", OpenAIChat, "tools[]", "≤ 128 tools",
		"Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length 325 instead. (array_above_max_length, param tools — the same text in reports from 2024 to 2026, at lengths down to 129; the API reference said \"A max of 128 functions are supported\")",
		"https://github.com/vishalmysore/Tools4AI/issues/16",
		"NewSession refuses a configuration whose tools[] would hold more (ErrConfig, naming the count and how many tools to defer — deferral.Policy — so that tool_search and defer_execute reach them instead); deferred tools are not in tools[]."},
	{"call-id", OpenAIChat, "messages[].tool_calls[].id, messages[].tool_call_id", "≤ 40 characters (the safe bound: reports up to 2026 say 40, one later live run 64)",
		"Invalid 'messages[2].tool_calls[0].id': string too long. Expected a string with maximum length 40, but got a string with length 83 instead. (string_above_max_length; the same report adds that later requests quoted a maximum length of 64)",
		"https://github.com/openclaw/openclaw/pull/875",
		"A longer id is sent as its alias — at most 23 of its characters ([A-Za-z0-9_-], others written _), _ and 16 hex digits of its SHA-256 — in the call and in its result alike; the harness keeps its own id, and the bytes stay the same on every turn and after a restore."},
	{"calls-answered", OpenAIChat, "messages[]", "every tool_call_id answered by a tool message",
		"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'.",
		"https://github.com/posit-dev/positron/issues/7770",
		"BuildRequest refuses a conversation that ends with unanswered calls (ErrInvalidMessage), before any bytes are built."},
	{"empty-error-result", OpenAIChat, "messages[].content (role tool)", "a failed result says something",
		"(no API error; the model reads an empty failure)", "https://github.com/microsoft/vscode/pull/330709",
		"An empty or whitespace-only failed result is sent as the fixed placeholder text."},

	{"additional-tools", OpenAIResponses, "input[] (additional_tools)", `role "developer"; each tool a function tool as tools[] takes it`,
		"The role of the additional tools item. Always `developer`. (openai-go ResponseInputItemAdditionalToolsParam; its tools are ToolUnionParam, the type of tools[])",
		"https://github.com/openai/openai-go/blob/main/responses/response.go",
		"With Config.NativeToolChanges a session sends an arrived tool's definition as tools[] would carry it (strict explicit, the description capped)."},
	{"tool-name", OpenAIResponses, "tools[].name", "^[a-zA-Z0-9_-]{1,64}$",
		"Must be a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum length of 64.",
		"https://platform.openai.com/docs/api-reference/responses/create",
		"Model-facing alias, as for Chat Completions."},
	{"description-length", OpenAIResponses, "tools[].description", "≤ 1,024 characters",
		"Expected a string with maximum length 1024 (string_above_max_length)",
		"https://github.com/getsentry/sentry-mcp/issues/106",
		"The name index rides in instructions; other over-cap descriptions are cut at a sentence with a pointer, as for Chat Completions."},
	{"unique-names", OpenAIResponses, "tools[].name", "each name once",
		"(a call names its tool; two tools of one name cannot be told apart)", "https://platform.openai.com/docs/guides/function-calling",
		"The registry refuses duplicate names."},
	{"strict-explicit", OpenAIResponses, "tools[].strict", `"strict": false unless the schema is strict-compatible`,
		"If you omit strict, the default depends on the API: Responses requests will normalize your schema into strict mode … To opt out of strict mode in Responses … explicitly set strict: false.",
		"https://platform.openai.com/docs/guides/function-calling",
		`Every function tool is sent with "strict": false (tool_search's "queries or tool_names, not both" cannot be strict), unless Config.Strict asks for strict and its schema is strict-compatible as it stands.`},
	{"assistant-text", OpenAIResponses, "input[] (role assistant)", `{"type":"message","role":"assistant","content":"…"}`,
		"An output_text message item needs id and status; the plain input message form is accepted everywhere.",
		"https://platform.openai.com/docs/api-reference/responses/create",
		"Assistant text is sent in the portable input-message form."},
	{"native-tool-search", OpenAIResponses, `tools[] {"type":"tool_search"}`, "gpt-5.4 and later",
		"Only gpt-5.4 and later models support tool_search.",
		"https://developers.openai.com/api/docs/guides/tools",
		"NewSession refuses Native tool search for other models (ErrConfig naming Config.Model); Portable tool_search works on every model."},
	{"client-tool-search", OpenAIResponses, `tools[] {"type":"tool_search","execution":"client"}; input[] tool_search_call, tool_search_output`, "each tool_search_call answered by a tool_search_output with its call_id and the loaded tools' definitions",
		"Whether tool search was executed by the server or by the client. … The loaded tool definitions returned by tool search. (openai-go v3 ResponseToolSearchCall, ResponseToolSearchOutputItem)",
		"https://developers.openai.com/api/docs/guides/tools-tool-search",
		"Client tool search sends toolshelf's tool_search as the client-executed tool_search (gpt-5.4 and later, as native-tool-search) and every deferred function with \"defer_loading\": true; Session.Answer answers a tool_search_call with a tool_search_output whose tools are the found functions' definitions, as tools[] has them."},
	{"schema-object", OpenAIResponses, "tools[].parameters", `a JSON Schema object of "type": "object" (or no parameters at all)`,
		`schema must be a JSON Schema of 'type: "object"', got 'type: "None"' (reported for Chat Completions; Responses validates function parameters the same way)`,
		"https://github.com/browserbase/stagehand/issues/1159",
		`As for Chat Completions: the registry writes "type":"object" into a schema without a type.`},
	{"call-id", OpenAIResponses, "input[].call_id (function_call, function_call_output)", "≤ 64 characters",
		"Invalid 'input[95].call_id': string too long. Expected a string with maximum length 64, but got a string with length 116 instead. (string_above_max_length; the same text from Azure's Responses API in openai/codex#14355)",
		"https://github.com/AnswerDotAI/fastllm/issues/45",
		"A longer call_id is sent as its alias, as for Chat Completions."},
	{"calls-answered", OpenAIResponses, "input[]", "every function_call answered by a function_call_output",
		"No tool output found for function call <call_id>.",
		"https://platform.openai.com/docs/guides/function-calling",
		"BuildRequest refuses a conversation that ends with unanswered calls (ErrInvalidMessage)."},
	{"empty-error-result", OpenAIResponses, "input[].output (function_call_output)", "a failed result says something",
		"(no API error; the model reads an empty failure)", "https://github.com/microsoft/vscode/pull/330709",
		"An empty or whitespace-only failed result is sent as the fixed placeholder text."},

	{"tool-name", Anthropic, "tools[].name", "^[a-zA-Z0-9_-]{1,128}$ (toolshelf emits ≤ 64)",
		"tools.N.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
		"https://github.com/github/copilot-cli/issues/1879",
		"Model-facing alias (≤ 64, so one name works on every provider)."},
	{"unique-names", Anthropic, "tools[].name", "each name once",
		"(a tool_use names its tool; two tools of one name cannot be told apart)", "https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use",
		"The registry refuses duplicate names."},
	{"max-tokens", Anthropic, "max_tokens", "required",
		"max_tokens: Required[int] — The maximum number of tokens to generate before stopping.",
		"https://github.com/anthropics/anthropic-sdk-python/blob/main/src/anthropic/types/message_create_params.py",
		`NewSession refuses a session without Config.Extra["max_tokens"] (ErrConfig); the CLI sends --max-tokens (default 4096).`},
	{"error-result-content", Anthropic, "messages[].content[] (tool_result)", "non-empty content when is_error",
		"content cannot be empty if `is_error` is true",
		"https://github.com/jlevy/markform/issues/153",
		"An empty or whitespace-only failed result is sent as the fixed placeholder text."},
	{"whitespace-text", Anthropic, "system[], messages[].content[] (text)", "non-whitespace text",
		"text content blocks must contain non-whitespace text",
		"https://github.com/home-assistant/core/issues/175637",
		"Whitespace-only assistant text is left out next to tool calls, and sent as the placeholder when it is all the message has; empty or whitespace-only host blocks and system items are refused."},
	{"schema-object", Anthropic, "tools[].input_schema", `required, with "type": "object"`,
		"tools.N.custom.input_schema.type: Field required",
		"https://github.com/marianfoo/mcp-sap-docs/pull/51",
		`Every tool is sent with its input_schema; the registry writes "type":"object" into a schema without a type.`},
	{"schema-top-level", Anthropic, "tools[].input_schema", "no oneOf, anyOf or allOf at the top",
		"tools.N.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level (one such tool fails every request)",
		"https://github.com/anthropics/claude-code/issues/5973",
		"The tool is sent without those top-level keywords; the dispatcher still validates every call against the full schema and answers a call that breaks them with the reason."},
	{"tool-reference", Anthropic, "messages[].content[] tool_result.content[] (tool_reference)", `tool_name names a tools[] entry with "defer_loading": true`,
		"If true, tool will not be included in initial system prompt. Only loaded when returned via tool_reference from tool search. (anthropic-sdk-go ToolParam.DeferLoading)",
		"https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool",
		"Client tool search sends toolshelf's tool_search as a custom tool (the cache breakpoint on it, the last tool not deferred) and every deferred tool with \"defer_loading\": true; Session.Answer references only those, and BuildRequest refuses a reference to any other name (ErrInvalidMessage)."},
	{"call-id", Anthropic, "messages[].content[] tool_use.id, tool_result.tool_use_id", "^[a-zA-Z0-9_-]+$",
		"messages.N.content.M.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$' (many reports of ids replayed from other providers: \"functions.Bash:0\", ids with | or .)",
		"https://github.com/maximhq/bifrost/issues/5097",
		"An id outside the pattern is sent as its alias, as for Chat Completions, in the tool_use and in its tool_result alike."},
	{"tool-change", Anthropic, `messages[] (role "system")`, "tool_addition carries a named definition with an object input_schema or names a known tool; tool_removal names a tools[] entry or an earlier addition",
		"`tool` is a reference to a tool (or MCP toolset) declared in the request's `tools`. Under the `inline-tools-2026-09-15` beta it may instead be a reference to a tool defined earlier in `messages`, or a `tool_definition` object that carries an inline tool definition in `definition` (anthropic-sdk-go BetaRequestToolAdditionBlockParam)",
		"https://github.com/anthropics/anthropic-sdk-go/blob/main/betamessage.go",
		"With Config.NativeToolChanges a session adds a tool by value, and removes by reference only a tool of tools[] or one it added; without it no system message is sent."},
	{"calls-answered", Anthropic, "messages[]", "every tool_use answered by a tool_result in the next message",
		"tool_use ids were found without tool_result blocks immediately after",
		"https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use",
		"BuildRequest refuses a conversation that ends with unanswered calls (ErrInvalidMessage)."},

	{"tool-name", Gemini, "tools[].functionDeclarations[].name", "^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$ (toolshelf emits ≤ 64)",
		"Required. The name of the function to call. Must start with a letter or an underscore. Must be a-z, A-Z, 0-9, or contain underscores, dots, colons and dashes, with a maximum length of 128.",
		"https://github.com/googleapis/go-genai/blob/main/types.go",
		"NewSession refuses a resident tool whose registry name starts with a digit or a dash (ErrConfig), naming it; a deferred tool is never declared, only called through defer_execute."},
	{"unique-names", Gemini, "tools[].functionDeclarations[].name", "each name once",
		"(a functionCall names its function; two declarations of one name cannot be told apart)", "https://ai.google.dev/gemini-api/docs/function-calling",
		"The registry refuses duplicate names."},
	{"tool-count", Gemini, "tools[].functionDeclarations[]", "≤ 512 function declarations",
		"Maximum 512 function declarations can be provided.",
		"https://github.com/googleapis/go-genai/blob/main/types.go",
		"NewSession refuses more (ErrConfig), and says how many more to defer; deferring keeps only tool_search and defer_execute and the resident tools declared."},
	{"schema-field", Gemini, "tools[].functionDeclarations[].parameters | parametersJsonSchema", `one of the two; "parameters" takes an OpenAPI 3.0 subset only; the schema is of "type": "object"`,
		"parameters: ... Reflects the Open API 3.03 Parameter Object ... parametersJsonSchema: Describes the parameters to the function in JSON Schema format. The schema must describe an object ... This field is mutually exclusive with `parameters`.",
		"https://github.com/googleapis/go-genai/blob/main/types.go",
		`Every declaration carries its schema, whole, in parametersJsonSchema ($ref, const, additionalProperties and the rest pass as JSON Schema); the registry writes "type":"object" into a schema without a type.`},
	{"roles", Gemini, "contents[].role", `"user" or "model"`,
		"Optional. The producer of the content. Must be either 'user' or 'model'.",
		"https://github.com/googleapis/go-genai/blob/main/types.go",
		"Assistant messages are model contents; user text and function responses are user contents, consecutive ones joined into one; two assistant messages in a row are refused (ErrInvalidMessage)."},
	{"empty-parts", Gemini, "systemInstruction.parts[], contents[].parts[]", "at least one part per content, and no empty part",
		"GenerateContentRequest.contents[...].parts: contents.parts must not be empty",
		"https://github.com/vercel/ai/issues/3775",
		"A model message with nothing to say is sent as the placeholder text; empty parts of a reply are dropped when decoded, never sent back."},
	{"calls-answered", Gemini, "contents[]", "every functionCall answered by a functionResponse of the same id and name in the next user content",
		"Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
		"https://github.com/google-gemini/gemini-cli/issues/4217",
		"BuildRequest refuses a conversation that ends with unanswered calls (ErrInvalidMessage); a functionResponse carries its call's id and name, the name read back from the encoded call."},
	{"thought-signature", Gemini, "contents[].parts[].thoughtSignature", "a functionCall part goes back with the signature it came with",
		"When using Gemini 3 models, you must pass back thought signatures during function calling, otherwise you will get a validation error (4xx status code).",
		"https://ai.google.dev/gemini-api/docs/thought-signatures",
		"DecodeReply keeps every signed part in Message.Native; the encoder puts each signature back on its function call (matched by id) or on the text, and sends thought and other native parts verbatim."},
}

// Rules returns the rule book of provider, or of every provider when
// provider is "". The slice is a copy.
func Rules(p string) []Rule {
	var out []Rule
	for _, r := range rules {
		if p == "" || r.Provider == p {
			out = append(out, r)
		}
	}
	return out
}

// A Violation is one place where a body breaks a rule.
type Violation struct {
	Rule string // the rule's ID
	Path string // JSON path of the offending value
	Msg  string
}

func (v Violation) String() string { return v.Rule + ": " + v.Path + ": " + v.Msg }

// Check verifies body, a request body for provider, against the rule book
// and returns every violation found, in body order. A body that is not a
// JSON object is one violation.
func Check(p string, body []byte) []Violation {
	c := checker{provider: p}
	var req map[string]json.RawMessage
	if err := json.Unmarshal(body, &req); err != nil {
		c.add("json", "", "not a JSON object: %v", err)
		return c.out
	}
	switch p {
	case OpenAIChat, OpenAIResponses, Anthropic:
	case Gemini:
		c.gemini(req)
		c.allowedTools(req, declaredNames(p, req))
		return c.out
	default:
		c.add("provider", "", "unknown provider %q", p)
		return c.out
	}
	c.tools(req)
	c.checkTokens(req)
	c.allowedTools(req, declaredNames(p, req))
	switch p {
	case OpenAIChat:
		c.chatMessages(req["messages"])
	case OpenAIResponses:
		c.responsesInput(req["input"])
	case Anthropic:
		if len(req["max_tokens"]) == 0 {
			c.add("max-tokens", "max_tokens", "missing: Anthropic requires max_tokens (set Config.Extra[\"max_tokens\"])")
		}
		c.anthropicSystem(req["system"])
		c.anthropicMessages(req["messages"])
	}
	return c.out
}

type checker struct {
	provider string
	out      []Violation
	// deferred are the tools[] names sent with "defer_loading": true.
	deferred map[string]bool
	// known are the tools[] names, then those of tool changes so far.
	known map[string]bool
}

func (c *checker) add(rule, path, format string, a ...any) {
	c.out = append(c.out, Violation{Rule: rule, Path: path, Msg: fmt.Sprintf(format, a...)})
}

// array decodes a JSON array; a missing value is an empty one.
func (c *checker) array(raw json.RawMessage, path string) []json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	var out []json.RawMessage
	if err := json.Unmarshal(raw, &out); err != nil {
		c.add("json", path, "want an array")
	}
	return out
}

func object(raw json.RawMessage) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// str decodes a JSON string; ok is false for anything else.
func str(raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }

// emptyFailure reports an OpenAI tool result that is a failure marker with
// nothing after it: providers without an error flag read "Error: " in
// front of a failed result.
func emptyFailure(s string) bool { return strings.TrimSpace(s) == "Error:" }

func (c *checker) tools(req map[string]json.RawMessage) {
	model, _ := str(req["model"])
	seen := map[string]int{}
	tools := c.array(req["tools"], "tools")
	if c.provider == OpenAIChat && len(tools) > MaxChatTools {
		c.add("tool-count", "tools", "%d tools; OpenAI Chat Completions accepts at most %d", len(tools), MaxChatTools)
	}
	for i, raw := range tools {
		at := fmt.Sprintf("tools[%d]", i)
		t := object(raw)
		if t == nil {
			c.add("json", at, "want an object")
			continue
		}
		typ, _ := str(t["type"])
		fn := t
		namePath, descPath := at+".name", at+".description"
		switch {
		case c.provider == OpenAIChat:
			if typ != "function" {
				c.add("tool-type", at+".type", "want \"function\", got %s", t["type"])
				continue
			}
			fn = object(t["function"])
			namePath, descPath = at+".function.name", at+".function.description"
		case c.provider == OpenAIResponses && typ == "tool_search":
			if !openai.NativeToolSearchModel(model) {
				c.add("native-tool-search", at, "model %q: only gpt-5.4 and later support tool_search", model)
			}
			continue
		case c.provider == OpenAIResponses && typ != "function":
			continue // another hosted tool
		case c.provider == Anthropic && typ != "" && typ != "custom":
			continue // a server tool (tool search), named by its type
		}
		name, _ := str(fn["name"])
		if !toolname.Valid(name) {
			c.add("tool-name", namePath, "%.80q must match ^[a-zA-Z0-9_-]{1,64}$", name)
		}
		if j, ok := seen[name]; ok {
			c.add("unique-names", namePath, "%q is also tools[%d]", name, j)
		} else {
			seen[name] = i
		}
		if c.known == nil {
			c.known = map[string]bool{}
		}
		c.known[name] = true
		if bytes.Equal(fn["defer_loading"], []byte("true")) {
			if c.deferred == nil {
				c.deferred = map[string]bool{}
			}
			c.deferred[name] = true
		}
		c.toolSchema(fn, at, name)
		d, ok := str(fn["description"])
		if c.provider != Anthropic && ok && utf8.RuneCountInString(d) > MaxDescription {
			c.add("description-length", descPath, "%q: %d characters, the limit is %d", name, utf8.RuneCountInString(d), MaxDescription)
		}
		if c.provider == OpenAIResponses {
			if s := fn["strict"]; !bytes.Equal(s, []byte("false")) && !bytes.Equal(s, []byte("true")) {
				c.add("strict-explicit", at+".strict", "%q: strict is missing; the API would normalize the schema into strict mode", name)
			}
		}
		if c.provider != Anthropic && bytes.Equal(fn["strict"], []byte("true")) && !openai.StrictCompatible(fn["parameters"]) {
			c.add("strict-explicit", at+".strict", "%q: strict is true but the schema is not strict-compatible as it stands", name)
		}
	}
}

// toolSchema checks the input schema of function tool fn at path at: an
// object schema of type "object" (OpenAI may leave parameters out;
// Anthropic needs input_schema), and for Anthropic no allOf, anyOf or
// oneOf at its top.
func (c *checker) toolSchema(fn map[string]json.RawMessage, at, name string) {
	key, path := "parameters", at+".parameters"
	switch c.provider {
	case OpenAIChat:
		path = at + ".function.parameters"
	case Anthropic:
		key, path = "input_schema", at+".input_schema"
	}
	raw, ok := fn[key]
	if !ok {
		if c.provider == Anthropic {
			c.add("schema-object", path, "%q: input_schema is missing", name)
		}
		return
	}
	schema := object(raw)
	if typ, _ := str(schema["type"]); typ != "object" {
		c.add("schema-object", path, "%q: the schema's type must be \"object\", got %.40s", name, cmp.Or(string(schema["type"]), "none"))
	}
	if c.provider != Anthropic {
		return
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if _, ok := schema[k]; ok {
			c.add("schema-top-level", path+"."+k, "%q: input_schema does not support oneOf, allOf, or anyOf at the top level", name)
		}
	}
}

// calls tracks tool calls waiting for their results.
type calls struct {
	pending []string
	at      []string // path of each pending call
}

func (p *calls) open(id, path string) { p.pending, p.at = append(p.pending, id), append(p.at, path) }

func (p *calls) answer(id string) bool {
	for i, x := range p.pending {
		if x == id {
			p.pending = append(p.pending[:i], p.pending[i+1:]...)
			p.at = append(p.at[:i], p.at[i+1:]...)
			return true
		}
	}
	return false
}

func (c *checker) unanswered(p *calls) {
	for i, id := range p.pending {
		c.add("calls-answered", p.at[i], "call %q has no result", id)
	}
	p.pending, p.at = p.pending[:0], p.at[:0]
}

func (c *checker) chatMessages(raw json.RawMessage) {
	var p calls
	for i, mr := range c.array(raw, "messages") {
		at := fmt.Sprintf("messages[%d]", i)
		m := object(mr)
		role, _ := str(m["role"])
		if role != "tool" {
			c.unanswered(&p)
		}
		switch role {
		case "assistant":
			for j, cr := range c.array(m["tool_calls"], at+".tool_calls") {
				id, _ := str(object(cr)["id"])
				cp := fmt.Sprintf("%s.tool_calls[%d]", at, j)
				c.callID(id, cp+".id")
				c.callName(object(object(cr)["function"])["name"], cp+".function.name")
				p.open(id, cp)
			}
		case "tool":
			id, _ := str(m["tool_call_id"])
			c.callID(id, at+".tool_call_id")
			if !p.answer(id) {
				c.add("calls-answered", at+".tool_call_id", "result for %q answers no open call", id)
			}
			if s, ok := str(m["content"]); ok && emptyFailure(s) {
				c.add("empty-error-result", at+".content", "a failed result with no text")
			}
		}
	}
	c.unanswered(&p)
}

func (c *checker) callName(raw json.RawMessage, path string) {
	if name, _ := str(raw); !toolname.Valid(name) {
		c.add("tool-name", path, "%.80q must match ^[a-zA-Z0-9_-]{1,64}$", name)
	}
}

// callID checks a call id (of a call or of the result answering it)
// against the provider's rule.
func (c *checker) callID(id, path string) {
	switch {
	case c.provider == OpenAIChat && !toolname.ChatCallIDOK(id):
		c.add("call-id", path, "%.80q: %d characters, the limit is %d", id, utf8.RuneCountInString(id), toolname.MaxChatCallID)
	case c.provider == OpenAIResponses && !toolname.ResponsesCallIDOK(id):
		c.add("call-id", path, "%.80q: %d characters, the limit is %d", id, utf8.RuneCountInString(id), toolname.MaxResponsesCallID)
	case c.provider == Anthropic && !toolname.AnthropicCallIDOK(id):
		c.add("call-id", path, "%.80q must match ^[a-zA-Z0-9_-]+$", id)
	}
}

func (c *checker) responsesInput(raw json.RawMessage) {
	var p calls
	for i, ir := range c.array(raw, "input") {
		at := fmt.Sprintf("input[%d]", i)
		m := object(ir)
		typ, _ := str(m["type"])
		role, _ := str(m["role"])
		switch {
		case typ == "function_call":
			id, _ := str(m["call_id"])
			c.callID(id, at+".call_id")
			c.callName(m["name"], at+".name")
			p.open(id, at)
			continue
		case typ == "tool_search_call":
			if ex, _ := str(m["execution"]); ex == "client" {
				id, _ := str(m["call_id"])
				c.callID(id, at+".call_id")
				p.open(id, at)
			}
			continue
		case typ == "tool_search_output":
			if ex, _ := str(m["execution"]); ex == "client" {
				c.searchOutput(m, at, &p)
			}
			continue
		case typ == "additional_tools":
			c.additionalTools(m, at)
			continue
		case typ == "function_call_output":
			id, _ := str(m["call_id"])
			c.callID(id, at+".call_id")
			if !p.answer(id) {
				c.add("calls-answered", at+".call_id", "output for %q answers no open call", id)
			}
			if s, ok := str(m["output"]); ok && emptyFailure(s) {
				c.add("empty-error-result", at+".output", "a failed result with no text")
			}
			continue
		case role == "assistant":
			if _, ok := str(m["content"]); !ok || typ != "" && typ != "message" {
				c.add("assistant-text", at, `want {"type":"message","role":"assistant","content":"…"}`)
			}
		}
		if typ == "" || typ == "message" {
			c.unanswered(&p)
		}
	}
	c.unanswered(&p)
}

func (c *checker) anthropicSystem(raw json.RawMessage) {
	if s, ok := str(raw); ok {
		if blank(s) {
			c.add("whitespace-text", "system", "empty or whitespace-only")
		}
		return
	}
	for i, br := range c.array(raw, "system") {
		c.textBlock(object(br), fmt.Sprintf("system[%d]", i))
	}
}

func (c *checker) textBlock(b map[string]json.RawMessage, path string) {
	if typ, _ := str(b["type"]); typ != "text" {
		return
	}
	if s, _ := str(b["text"]); blank(s) {
		c.add("whitespace-text", path+".text", "text blocks must contain non-whitespace text")
	}
}

func (c *checker) anthropicMessages(raw json.RawMessage) {
	var p calls
	for i, mr := range c.array(raw, "messages") {
		at := fmt.Sprintf("messages[%d]", i)
		m := object(mr)
		role, _ := str(m["role"])
		if s, ok := str(m["content"]); ok {
			if blank(s) {
				c.add("whitespace-text", at+".content", "text content must contain non-whitespace text")
			}
			c.unanswered(&p)
			continue
		}
		blocks := c.array(m["content"], at+".content")
		if role == "system" {
			c.toolChanges(blocks, at)
		}
		if role == "user" {
			for j, br := range blocks {
				b := object(br)
				if typ, _ := str(b["type"]); typ != "tool_result" {
					continue
				}
				id, _ := str(b["tool_use_id"])
				bp := fmt.Sprintf("%s.content[%d]", at, j)
				c.callID(id, bp+".tool_use_id")
				if !p.answer(id) {
					c.add("calls-answered", bp+".tool_use_id", "result for %q answers no tool_use of the previous message", id)
				}
				c.references(b["content"], bp+".content")
				if bytes.Equal(b["is_error"], []byte("true")) && emptyContent(b["content"]) {
					c.add("error-result-content", bp+".content", "content cannot be empty if is_error is true")
				}
			}
		}
		c.unanswered(&p)
		for j, br := range blocks {
			b := object(br)
			bp := fmt.Sprintf("%s.content[%d]", at, j)
			c.textBlock(b, bp)
			if typ, _ := str(b["type"]); typ == "tool_use" && role == "assistant" {
				id, _ := str(b["id"])
				c.callID(id, bp+".id")
				c.callName(b["name"], bp+".name")
				p.open(id, bp)
			}
		}
	}
	c.unanswered(&p)
}

// emptyContent reports a tool_result content that says nothing: missing,
// a blank string, an empty array, or only blank text blocks.
func emptyContent(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return true
	}
	if s, ok := str(raw); ok {
		return blank(s)
	}
	var blocks []json.RawMessage
	if json.Unmarshal(raw, &blocks) != nil {
		return false
	}
	for _, b := range blocks {
		m := object(b)
		if typ, _ := str(m["type"]); typ != "text" {
			return false
		}
		if s, _ := str(m["text"]); !blank(s) {
			return false
		}
	}
	return true
}

// searchOutput checks a client tool_search_output: it answers an open
// tool_search_call, and each tool it loads is a named function.
func (c *checker) searchOutput(m map[string]json.RawMessage, at string, p *calls) {
	id, _ := str(m["call_id"])
	c.callID(id, at+".call_id")
	if !p.answer(id) {
		c.add("client-tool-search", at+".call_id", "output for %q answers no open tool_search_call", id)
	}
	for j, tr := range c.array(m["tools"], at+".tools") {
		t := object(tr)
		if typ, _ := str(t["type"]); typ != "function" && typ != "namespace" {
			c.add("client-tool-search", fmt.Sprintf("%s.tools[%d].type", at, j), "want a function or namespace definition, got %s", t["type"])
			continue
		}
		c.callName(t["name"], fmt.Sprintf("%s.tools[%d].name", at, j))
	}
}

// references checks the tool_reference blocks of an Anthropic tool_result:
// each names a deferred tool of tools[].
func (c *checker) references(raw json.RawMessage, path string) {
	if len(raw) == 0 || raw[0] != '[' {
		return
	}
	var blocks []json.RawMessage
	if json.Unmarshal(raw, &blocks) != nil {
		return
	}
	for k, br := range blocks {
		b := object(br)
		if typ, _ := str(b["type"]); typ != "tool_reference" {
			continue
		}
		if n, _ := str(b["tool_name"]); !c.deferred[n] {
			c.add("tool-reference", fmt.Sprintf("%s[%d].tool_name", path, k), "%.80q is not a tools[] entry with \"defer_loading\": true", n)
		}
	}
}

// toolChanges checks the tool_addition and tool_removal blocks of an
// Anthropic system message at path at.
func (c *checker) toolChanges(blocks []json.RawMessage, at string) {
	if c.known == nil {
		c.known = map[string]bool{}
	}
	for j, br := range blocks {
		b := object(br)
		bp := fmt.Sprintf("%s.content[%d]", at, j)
		typ, _ := str(b["type"])
		tool := object(b["tool"])
		ttyp, _ := str(tool["type"])
		switch {
		case (typ == "tool_addition" || typ == "tool_removal") && ttyp == "tool_reference":
			if n, _ := str(tool["name"]); !c.known[n] {
				c.add("tool-change", bp+".tool.name", "%.80q is neither a tools[] entry nor added earlier", n)
			}
		case typ == "tool_addition" && ttyp == "tool_definition":
			def := object(tool["definition"])
			name, _ := str(def["name"])
			if !toolname.Valid(name) {
				c.add("tool-change", bp+".tool.definition.name", "%.80q must match ^[a-zA-Z0-9_-]{1,64}$", name)
			}
			c.toolSchema(def, bp+".tool.definition", name)
			c.known[name] = true
		case typ == "tool_addition" || typ == "tool_removal":
			c.add("tool-change", bp+".tool", "want a tool_reference or (in an addition) a tool_definition")
		}
	}
}

// additionalTools checks a Responses additional_tools item at path at.
func (c *checker) additionalTools(m map[string]json.RawMessage, at string) {
	if role, _ := str(m["role"]); role != "developer" {
		c.add("additional-tools", at+".role", "want \"developer\", got %s", m["role"])
	}
	if c.known == nil {
		c.known = map[string]bool{}
	}
	for k, raw := range c.array(m["tools"], at+".tools") {
		tp := fmt.Sprintf("%s.tools[%d]", at, k)
		t := object(raw)
		if typ, _ := str(t["type"]); typ != "function" {
			continue // a hosted tool
		}
		name, _ := str(t["name"])
		if !toolname.Valid(name) {
			c.add("tool-name", tp+".name", "%.80q must match ^[a-zA-Z0-9_-]{1,64}$", name)
		}
		c.known[name] = true
		c.toolSchema(t, tp, name)
		if d, _ := str(t["description"]); utf8.RuneCountInString(d) > MaxDescription {
			c.add("description-length", tp+".description", "%q: %d characters, the limit is %d", name, utf8.RuneCountInString(d), MaxDescription)
		}
		if s := t["strict"]; !bytes.Equal(s, []byte("false")) && !bytes.Equal(s, []byte("true")) {
			c.add("strict-explicit", tp+".strict", "%q: strict is missing; the API would normalize the schema into strict mode", name)
		}
	}
}
