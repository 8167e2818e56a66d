package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/wire"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// requestJSON is request's --json output: the body and what shaped it.
type requestJSON struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	// Bytes is the body's length; PrefixBytes the length of its cacheable
	// prefix (system and tools), the part that stays byte-identical from
	// turn to turn.
	Bytes       int `json:"bytes"`
	PrefixBytes int `json:"prefix_bytes"`
	// Resident and Deferred name the tools in tools[] and those only in
	// tool_search's index (entry tools not included), in snapshot order.
	Resident []string `json:"resident_tools"`
	Deferred []string `json:"deferred_tools"`
	Messages int      `json:"messages"`
	// Body is the request body as a JSON value (re-indented by this
	// output; without --json the bytes are written exactly).
	Body json.RawMessage `json:"body"`
}

// requestOptions are request's flags, parsed.
type requestOptions struct {
	catalogs                 files
	mcpConfig                string
	provider, model, rules   string
	system, transcript, user string
	asJSON, check            bool
	server, bodyFile         string
	maxTokens                int
	toolSearch               string
}

// requestFlags declares request's flags, to be parsed into the returned options.
func requestFlags() (*flag.FlagSet, *requestOptions) {
	fs := flag.NewFlagSet("request", flag.ContinueOnError)
	o := &requestOptions{}
	fs.Var(&o.catalogs, "catalog", "catalog `FILE` (repeatable; more files may follow)")
	fs.StringVar(&o.provider, "provider", "", "`PROVIDER`: openai-chat, openai-responses, anthropic or gemini")
	fs.StringVar(&o.model, "model", "", "the provider's model `NAME`")
	fs.StringVar(&o.rules, "rules", "", rulesUsage)
	fs.StringVar(&o.system, "system", "", "the system prompt `TEXT`")
	fs.StringVar(&o.transcript, "transcript", "", "`FILE`: a JSON array of messages (role, text, tool_calls, call_id, is_error)")
	fs.StringVar(&o.user, "user", "", "one user message `TEXT`: a one-message turn")
	fs.BoolVar(&o.asJSON, "json", false, "write the body inside a JSON report")
	fs.StringVar(&o.mcpConfig, "mcp-config", "", "an mcpServers `FILE`: its stdio servers started and their tools added (deferred), each under its entry's name")
	fs.StringVar(&o.server, "server", "", "the server `NAME` of a --catalog that is an MCP tools/list (it names none)")
	fs.IntVar(&o.maxTokens, "max-tokens", defaultMaxTokens, "output-token bound `N`: max_tokens for anthropic, which requires it; "+
		"openai-chat (max_tokens) and openai-responses (max_output_tokens) get it only when the flag is given")
	fs.BoolVar(&o.check, "check", false, "check the body against the provider's rule book (docs/providers.md): each violation on stderr, exit 1")
	fs.StringVar(&o.bodyFile, "body", "", "with --check: check the request body in `FILE` (any harness's) instead of building one")
	fs.StringVar(&o.toolSearch, "tool-search", string(request.Portable), "who searches the deferred tools: `MODE` portable (tool_search and defer_execute), "+
		"native or native-regex (the provider's own search), or client (toolshelf's search answering in the provider's reference form; anthropic and openai-responses)")
	return fs, o
}

// runRequest prints the exact request body BuildRequest returns for the
// catalogs and one turn: a --user message or a --transcript of messages.
func runRequest(args []string, stdout, stderr io.Writer) int {
	fs, o := requestFlags()
	pos, err := parse(fs, args)
	if err != nil {
		return parseFailed(fs, err, stdout, stderr)
	}
	o.catalogs = append(o.catalogs, pos...)
	if o.bodyFile != "" {
		return checkBodyFile(o.bodyFile, o.provider, o.check, stderr)
	}
	if err := o.validate(); err != nil {
		return fail(stderr, "%v", err)
	}
	extra := outputBound(request.Provider(o.provider), o.maxTokens, flagSet(fs, "max-tokens"))
	s, msgs, body, err := o.build(extra)
	if err != nil {
		return fail(stderr, "toolshelf request: %v", err)
	}

	for _, w := range s.RuleWarnings() {
		fmt.Fprintf(stderr, "toolshelf request: warning: %s: %s\n", o.rules, w)
	}
	status := exitOK
	if o.check {
		vs := wire.Check(o.provider, body)
		for _, v := range vs {
			fmt.Fprintf(stderr, "toolshelf request: %s body breaks rule %s\n", o.provider, v)
			status = exitFinding
		}
		if len(vs) == 0 {
			fmt.Fprintf(stderr, "toolshelf request: OK: the %s body (%d bytes) passes the provider rule book\n", o.provider, len(body))
		}
	}
	if !o.asJSON {
		stdout.Write(body)
		return status
	}
	plan := s.Plan()
	out := requestJSON{
		Provider: o.provider, Model: o.model,
		Bytes: len(body), PrefixBytes: wire.PrefixLen(body),
		Resident: names(plan.Resident()), Deferred: names(plan.Deferred()),
		Messages: len(msgs), Body: body,
	}
	var buf bytes.Buffer
	if err := writeJSON(&buf, out); err != nil {
		return fail(stderr, "toolshelf request: %v", err)
	}
	stdout.Write(buf.Bytes())
	return status
}

// validate checks the parsed flags; its errors are the whole message
// for the user.
func (o *requestOptions) validate() error {
	switch {
	case len(o.catalogs) == 0 && o.mcpConfig == "":
		return errors.New("toolshelf request: no catalog: pass --catalog FILE (MCP tools/list, OpenAI, Anthropic or catalog-file JSON) or --mcp-config FILE (an mcpServers file)")
	case o.provider == "":
		return errors.New("toolshelf request: no provider: pass --provider openai-chat, openai-responses, anthropic or gemini")
	case o.model == "":
		return errors.New("toolshelf request: no model: pass --model NAME (the provider's model name)")
	case o.transcript != "" && o.user != "":
		return errors.New("toolshelf request: give --user TEXT or --transcript FILE, not both")
	case o.transcript == "" && o.user == "":
		return errors.New("toolshelf request: no messages: pass --user TEXT or --transcript FILE (a JSON array of messages)")
	}
	if err := providerError(o.provider); err != nil {
		return fmt.Errorf("toolshelf request: %v", err)
	}
	if o.maxTokens < 0 {
		return fmt.Errorf("toolshelf request: --max-tokens %d: want 0 or more", o.maxTokens)
	}
	return nil
}

// build loads the catalogs and the turn's messages, opens the session and
// builds the request body.
func (o *requestOptions) build(extra map[string]json.RawMessage) (*request.Session, []request.Message, []byte, error) {
	reg, err := loadCatalogs(o.catalogs, o.server)
	if err != nil {
		return nil, nil, nil, err
	}
	if o.mcpConfig != "" {
		if _, _, err := addMCPConfig(reg, o.mcpConfig, mcpConfigTimeout); err != nil {
			return nil, nil, nil, err
		}
	}
	rs, err := readRuleSet(o.rules)
	if err != nil {
		return nil, nil, nil, err
	}

	msgs := []request.Message{{Role: request.RoleUser, Text: o.user}}
	if o.transcript != "" {
		if msgs, err = readTranscript(o.transcript); err != nil {
			return nil, nil, nil, err
		}
	}

	s, err := request.NewSession(request.Config{
		Snapshot:   reg.Snapshot(),
		Policy:     &deferral.Policy{Layers: rs.policy().Layers},
		Dispatcher: rs.disp, // its Deny rules leave tools out, as in a harness
		View:       deferral.View{Tier: registry.TierFull},
		Provider:   request.Provider(o.provider),
		Model:      o.model,
		System:     o.system,
		Extra:      extra,

		ToolSearch: request.ToolSearch(o.toolSearch),
	})
	if err != nil {
		return nil, nil, nil, err
	}
	body, err := s.BuildRequest(request.Turn{Messages: msgs})
	if err != nil {
		if o.transcript != "" {
			err = nameFile(o.transcript, err)
		}
		return nil, nil, nil, err
	}
	return s, msgs, body, nil
}

// defaultMaxTokens is --max-tokens' default.
const defaultMaxTokens = 4096

// outputBound is the request's output-token bound: always for Anthropic,
// which refuses a request without max_tokens; for the OpenAI APIs and
// Gemini (generationConfig.maxOutputTokens), which have a default, only
// when --max-tokens was given.
func outputBound(p request.Provider, n int, given bool) map[string]json.RawMessage {
	v := json.RawMessage(strconv.Itoa(n))
	switch {
	case p == request.Anthropic:
		return map[string]json.RawMessage{"max_tokens": v}
	case !given:
		return nil
	case p == request.OpenAIResponses:
		return map[string]json.RawMessage{"max_output_tokens": v}
	case p == request.Gemini:
		return map[string]json.RawMessage{"generationConfig": json.RawMessage(`{"maxOutputTokens":` + string(v) + `}`)}
	}
	return map[string]json.RawMessage{"max_tokens": v}
}

// readTranscript reads a JSON array of request.Message. Unknown keys are
// errors: a misspelt "tool_call" would otherwise drop the calls silently.
func readTranscript(path string) ([]request.Message, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var msgs []request.Message
	if err := dec.Decode(&msgs); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%s: not valid JSON at byte %d: %v", path, se.Offset, err)
		}
		return nil, fmt.Errorf("%s: want a JSON array of messages {role, text, tool_calls, call_id, is_error}: %v", path, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: data after the JSON array", path)
	}
	if len(msgs) == 0 {
		return nil, fmt.Errorf("%s: the transcript has no messages", path)
	}
	return msgs, nil
}

// nameFile makes sure an error names the file it is about.
func nameFile(path string, err error) error {
	if strings.Contains(err.Error(), path) {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}

func names(tools []*registry.Tool) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Name
	}
	return out
}

// checkBodyFile is request --check --body FILE: the rule book on a body
// built elsewhere.
func checkBodyFile(path, provider string, check bool, stderr io.Writer) int {
	switch {
	case !check:
		return fail(stderr, "toolshelf request: --body FILE goes with --check")
	case provider == "":
		return fail(stderr, "toolshelf request: --check --body: pass --provider openai-chat, openai-responses, anthropic or gemini")
	}
	if err := providerError(provider); err != nil {
		return fail(stderr, "toolshelf request: %v", err)
	}
	body, err := os.ReadFile(path)
	if err != nil {
		return fail(stderr, "toolshelf request: --body: %v", err)
	}
	status := exitOK
	vs := wire.Check(provider, body)
	for _, v := range vs {
		fmt.Fprintf(stderr, "toolshelf request: %s: %s body breaks rule %s\n", path, provider, v)
		status = exitFinding
	}
	if len(vs) == 0 {
		fmt.Fprintf(stderr, "toolshelf request: OK: %s: the %s body (%d bytes) passes the provider rule book\n", path, provider, len(body))
	}
	return status
}

// providerError is the usage error of a --provider the library does not
// know, or nil.
func providerError(p string) error {
	switch request.Provider(p) {
	case request.OpenAIChat, request.OpenAIResponses, request.Anthropic, request.Gemini:
		return nil
	}
	return fmt.Errorf("--provider %q: unknown; want openai-chat, openai-responses, anthropic or gemini", p)
}
