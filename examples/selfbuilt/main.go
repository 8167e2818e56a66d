// Command selfbuilt shows a tool the model wrote at run time: registered
// in one session with Session.RegisterSelfBuilt, announced to the model by
// an append-only block (the prefix and the index do not change), found
// with tool_search, and called through defer_execute with its schema
// enforced. No network, no key; the model is scripted.
//
//	go run ./examples/selfbuilt
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "selfbuilt:", err)
		os.Exit(1)
	}
}

// written is what the model sends to the harness's tool-writing tool: a
// name, a description, a schema and code. The description is text: the
// "{{.user}}" in it stays literally as written, it is never a template.
type written struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

var attempts = []written{
	// Rejected: not a valid tool name. The model is told why.
	{Name: "word count!", Description: "Count words.", InputSchema: json.RawMessage(`{"type":"object"}`)},
	// Rejected: a schema must be an object schema.
	{Name: "word_count", Description: "Count words.", InputSchema: json.RawMessage(`{"type":"string"}`)},
	// Accepted.
	{Name: "word_count", Description: "Count the words of a text, e.g. a draft by {{.user}}. Returns {\"words\": N}.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"The text to count."}},"required":["text"],"additionalProperties":false}`)},
}

// wordCount is the handler the harness attaches to the written tool. A
// real harness would run the model's code in a sandbox; this one counts.
func wordCount(ctx context.Context, params json.RawMessage) (registry.Result, error) {
	var p struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return registry.Result{}, err
	}
	return registry.Result{Text: fmt.Sprintf(`{"words":%d}`, len(strings.Fields(p.Text)))}, nil
}

func run(w io.Writer) error {
	ctx := context.Background()
	reg := registry.New(nil)
	// One rare tool is deferred; the session is also created with
	// SelfBuilt, which keeps tool_search and defer_execute in tools[] even
	// when nothing else is deferred: they are how the model reaches
	// self-built tools.
	err := reg.Register(registry.Tool{
		Name: "Read", Description: "Read a file.",
		RawSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
	}, registry.Tool{
		Name: "Translate", Description: "Translate a text into another language.", DeferLoading: registry.DeferTrue,
		RawSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"to":{"type":"string"}},"required":["text","to"]}`),
	})
	if err != nil {
		return err
	}
	disp, err := execute.New(nil)
	if err != nil {
		return err
	}
	cfg := request.Config{
		Snapshot:   reg.Snapshot(),
		Provider:   request.OpenAIResponses,
		Model:      "gpt-4.1",
		System:     "You may write yourself tools.",
		Dispatcher: disp,
		SelfBuilt:  true,
	}
	cfg.ID = "writer"
	s, err := request.NewSession(cfg)
	if err != nil {
		return err
	}
	cfg.ID = "other"
	other, err := request.NewSession(cfg)
	if err != nil {
		return err
	}

	first, err := s.BuildRequest(request.Turn{Messages: []request.Message{{Role: request.RoleUser, Text: "How many words are in my draft?"}}})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "request 1: %d bytes; tools: %s\n", len(first), strings.Join(exposed(s), ", "))

	// 1. The model writes a tool; the harness registers it in this session.
	for _, a := range attempts {
		err := s.RegisterSelfBuilt(registry.Tool{Name: a.Name, Description: a.Description, RawSchema: a.InputSchema, Handler: wordCount})
		if err != nil {
			fmt.Fprintf(w, "register %q: rejected: %v\n", a.Name, err)
			continue
		}
		fmt.Fprintf(w, "register %q: ok (deferred: %t)\n", a.Name, deferred(s, a.Name))
	}

	// 2. The next request announces it in a block; the prefix is unchanged.
	args := `{"queries":["count words in a text"]}`
	second, err := s.BuildRequest(request.Turn{Messages: []request.Message{
		{Role: request.RoleAssistant, Text: "I wrote word_count."},
		{Role: request.RoleUser, Text: "Use it on: the quick brown fox"},
	}})
	if err != nil {
		return err
	}
	p := s.Prefix()
	fmt.Fprintf(w, "request 2: %d bytes; prefix %d bytes, identical to request 1: %t\n", len(second), len(p), bytes.HasPrefix(first, p) && bytes.HasPrefix(second, p))
	fmt.Fprintf(w, "  announcement: %s\n", announcement(s))

	// 3. The model searches for it by what it does, loads it, and calls it
	// through defer_execute — first with a wrong parameter.
	for _, c := range []struct{ name, args string }{
		{"tool_search", args},
		{"defer_execute", `{"tool_name":"word_count","params":{"txt":"the quick brown fox"}}`},
		{"defer_execute", `{"tool_name":"word_count","params":{"text":"the quick brown fox"}}`},
	} {
		res := s.Call(ctx, c.name, json.RawMessage(c.args))
		fmt.Fprintf(w, "%s %s\n  → %s%s\n", c.name, c.args, errTag(res), clip(res.Text, 160))
	}

	// 4. Another session over the same snapshot never sees it.
	res := other.Call(ctx, "defer_execute", json.RawMessage(`{"tool_name":"word_count","params":{"text":"x"}}`))
	fmt.Fprintf(w, "other session: defer_execute word_count\n  → %s%s\n", errTag(res), clip(res.Text, 120))
	_, _, sees := other.Lookup("word_count")
	fmt.Fprintf(w, "other session sees word_count: %t; same prefix bytes: %t\n",
		sees, string(other.Prefix()) == string(s.Prefix()))
	return nil
}

func exposed(s *request.Session) []string {
	var out []string
	for _, t := range s.Plan().Resident() {
		out = append(out, t.Name)
	}
	if _, _, ok := s.Lookup(registry.ToolSearchName); ok {
		out = append(out, registry.ToolSearchName, registry.DeferExecuteName)
	}
	return out
}

func deferred(s *request.Session, name string) bool {
	_, d, ok := s.Lookup(name)
	return ok && d
}

// announcement is the block the session added to the last user message.
func announcement(s *request.Session) string {
	msgs := s.Messages()
	for i := len(msgs) - 1; i >= 0; i-- {
		for _, b := range msgs[i].Blocks {
			if strings.Contains(b, "word_count") {
				return clip(b, 200)
			}
		}
	}
	return "(none)"
}

func errTag(r registry.Result) string {
	if r.IsError {
		return "error: "
	}
	return ""
}

func clip(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
