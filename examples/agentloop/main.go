// Command agentloop is the loop every harness runs — build the request,
// ask the model, decode its reply, run its tool calls, repeat — with
// toolshelf doing both halves: the request and the governance on the way
// out, the reply and the usage on the way back. The model is recorded (no
// network, no key): its replies, in each provider's wire format, whole or
// streamed, are under testdata/; it tries things a harness must stop.
//
// Every call goes through one execute.Dispatcher, resident or deferred,
// direct or through defer_execute:
//
//   - Deny(DropDatabase): refused, whichever way the model calls it;
//   - Ask(Deploy): a callback asks the user, who approves staging only;
//   - hook "no-rm-rf" blocks destructive shell commands;
//   - hook "sandbox-writes" rewrites relative paths into the workspace.
//
// Replies are decoded by request.DecodeReply (whole bodies) or
// request.DecodeStream (server-sent events); their usage feeds a
// budget.Ledger that follows the session (budget.FollowSession), printed
// at the end. The user takes six minutes to answer the Deploy question:
// on Anthropic, whose cache keeps an entry 5 minutes, the next request
// misses the cache, and the ledger says why.
//
// Run it with:
//
//	go run ./examples/agentloop [-provider anthropic|openai-chat|openai-responses] [-stream]
package main

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/toolshelf/toolshelf/budget"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// Model is what the loop talks to: it reads a request body and answers
// with the provider's raw reply — a response body or, streamed, its
// server-sent events. A real harness posts the body to the provider; this
// example replays recorded replies.
type Model interface {
	Next(ctx context.Context, body []byte) ([]byte, error)
}

// Options choose the provider and whether replies are streamed.
type Options struct {
	Provider request.Provider
	Stream   bool
	// clock is the time the session and the user keep (nil: a
	// simulated clock that starts at 09:00 and moves as the loop runs).
	clock *simClock
}

// simClock is a simulated time: each request comes 15 seconds after the
// previous one, and the user's answer to a question takes its own time.
type simClock struct{ t time.Time }

func newSimClock() *simClock { return &simClock{t: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)} }

func (c *simClock) now() time.Time { return c.t }

func (c *simClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func main() {
	var o Options
	provider := flag.String("provider", string(request.Anthropic), "anthropic, openai-chat or openai-responses")
	flag.BoolVar(&o.Stream, "stream", false, "replay the streamed replies (server-sent events) instead of whole bodies")
	flag.Parse()
	o.Provider = request.Provider(*provider)
	model, err := newRecorded(o)
	if err == nil {
		_, err = run(os.Stdout, model, o)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "agentloop:", err)
		os.Exit(1)
	}
}

// maxTurns bounds the loop: a model that never stops calling tools must
// not run forever.
const maxTurns = 20

// models are the model names the example's sessions use, per provider.
var models = map[request.Provider]string{
	request.Anthropic:       "claude-sonnet-4-5",
	request.OpenAIChat:      "gpt-4o",
	request.OpenAIResponses: "gpt-4o",
}

// run builds the harness, runs one user request to the end and prints the
// usage ledger, which it returns.
func run(w io.Writer, model Model, o Options) (*budget.Ledger, error) {
	var ran []string // the handlers that actually ran, in order
	reg := registry.New(nil)
	if err := reg.Register(tools(&ran)...); err != nil {
		return nil, err
	}
	if o.clock == nil {
		o.clock = newSimClock()
	}
	disp, err := newDispatcher(w, o.clock)
	if err != nil {
		return nil, err
	}

	// Each API names its output-token limit its own way; NewSession
	// refuses another's name.
	tokenField := map[request.Provider]string{request.Anthropic: "max_tokens", request.OpenAIChat: "max_tokens", request.OpenAIResponses: "max_output_tokens"}
	s, err := request.NewSession(request.Config{
		ID:         "agentloop",
		Snapshot:   reg.Snapshot(),
		Provider:   o.Provider,
		Model:      models[o.Provider],
		System:     "You are a release engineer. Use the tools; explain refusals to the user.",
		Extra:      map[string]json.RawMessage{tokenField[o.Provider]: json.RawMessage("1024")},
		Dispatcher: disp,
		Clock:      o.clock.now,
	})
	if err != nil {
		return nil, err
	}
	plan := s.Plan()
	// The ledger follows the session: its account, and why a request
	// missed the provider's cache.
	ledger, err := budget.FollowSession(s, &budget.LedgerOptions{Counter: budget.CounterForModel(models[o.Provider])})
	if err != nil {
		return nil, err
	}
	mode := "whole replies"
	if o.Stream {
		mode = "streamed replies"
	}
	fmt.Fprintf(w, "provider: %s (%s, %s)\nresident: %s\ndeferred: %s\nrules:    Deny(DropDatabase), Ask(Deploy); hooks: no-rm-rf (Bash), sandbox-writes (Write)\n",
		o.Provider, models[o.Provider], mode, strings.Join(toolNames(plan.Resident()), ", "), strings.Join(toolNames(plan.Deferred()), ", "))

	if err := loop(w, model, o, s, ledger); err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "\nhandlers that ran: %s\n\n", strings.Join(ran, "; "))
	return ledger, ledger.Write(w)
}

// newDispatcher returns the harness's dispatcher: its permission rules,
// the user's answer to Ask(Deploy) and its hooks, printing what it asks
// and what its guards do to w.
func newDispatcher(w io.Writer, clock *simClock) (*execute.Dispatcher, error) {
	return execute.New(&execute.Options{
		Permissions: execute.MustPermissions("Deny(DropDatabase)", "Ask(Deploy)"),
		Ask: func(ctx context.Context, req execute.AskRequest) (bool, error) {
			var p struct {
				Env string `json:"env"`
			}
			_ = json.Unmarshal(req.Params, &p)
			yes := p.Env == "staging"
			if yes {
				clock.advance(6 * time.Minute) // the user thinks it over
			}
			fmt.Fprintf(w, "      ask   %s %s? the user says %s\n", req.Tool, req.Params, map[bool]string{true: "yes (after 6 minutes)", false: "no"}[yes])
			return yes, nil
		},
		Hooks: []execute.Hook{
			{Name: "no-rm-rf", Pattern: "Bash", Before: noRmRf},
			{Name: "sandbox-writes", Pattern: "Write", Before: sandboxWrites},
		},
		Observer: execute.OnEvent(func(e execute.Event) {
			if line := describe(e); line != "" {
				fmt.Fprintf(w, "      guard %s\n", line)
			}
		}),
	})
}

// loop runs the user's request to the model's answer, at most maxTurns
// requests: build the request, ask the model, decode its reply into the
// ledger, run its tool calls, repeat.
func loop(w io.Writer, model Model, o Options, s *request.Session, ledger *budget.Ledger) error {
	ctx := context.Background()
	const user = "Clean the build, write the release notes, deploy, and drop the old test database."
	fmt.Fprintf(w, "\nuser: %s\n", user)
	turn := request.Turn{Messages: []request.Message{{Role: request.RoleUser, Text: user}}}
	var first []byte
	for n := 1; ; n++ {
		if n > maxTurns {
			return fmt.Errorf("no answer after %d turns", maxTurns)
		}
		o.clock.advance(15 * time.Second)
		body, err := s.BuildRequest(turn)
		if err != nil {
			return err
		}
		if first == nil {
			first = body
		}
		fmt.Fprintf(w, "\nrequest %d (%d bytes, %s)\n", n, len(body), prefixNote(n, s.Prefix(), first, body))

		raw, err := model.Next(ctx, body)
		if err != nil {
			return err
		}
		var reply request.Reply
		if o.Stream {
			reply, err = request.DecodeStream(o.Provider, bytes.NewReader(raw))
		} else {
			reply, err = request.DecodeReply(o.Provider, raw)
		}
		if err != nil {
			return fmt.Errorf("reply %d: %w", n, err)
		}
		line := ledger.Add(reply.Usage)
		fmt.Fprintf(w, "  usage   input %d (cache read %d, write %d) · output %d · stop %s\n",
			line.InputTokens, line.CacheReadTokens, line.CacheWriteTokens, line.OutputTokens, reply.StopReason)
		if line.Miss != nil {
			fmt.Fprintf(w, "  cache   %s\n", line.Miss.Text)
		}
		msg := reply.Message
		if len(msg.ToolCalls) == 0 {
			fmt.Fprintf(w, "model: %s\n", msg.Text)
			return nil
		}
		turn = runCalls(ctx, w, s, msg)
	}
}

// prefixNote says how request n's prefix compares with the first
// request's: frozen, the same, or where it changed. prefix is the
// session's (Session.Prefix): system and tools, encoded.
func prefixNote(n int, prefix, first, body []byte) string {
	shared := fmt.Sprintf("prefix %d bytes, same as request 1", len(prefix))
	if n == 1 {
		shared = fmt.Sprintf("prefix %d bytes: system and tools, frozen", len(prefix))
	}
	if !bytes.HasPrefix(first, prefix) || !bytes.HasPrefix(body, prefix) {
		i := 0
		for i < len(first) && i < len(body) && first[i] == body[i] {
			i++
		}
		shared = fmt.Sprintf("PREFIX CHANGED at byte %d", i)
	}
	return shared
}

// runCalls runs the model message's tool calls through Session.Call,
// printing each call and its result, and returns the next turn: the
// message and the results.
func runCalls(ctx context.Context, w io.Writer, s *request.Session, msg request.Message) request.Turn {
	turn := request.Turn{Messages: []request.Message{msg}}
	for _, c := range msg.ToolCalls {
		fmt.Fprintf(w, "  → %s %s\n", c.Name, c.Arguments)
		// The call ID reaches the handler's context (execute.CallFromContext).
		res := s.Call(execute.WithCallID(ctx, c.ID), c.Name, c.Arguments)
		status := "ok   "
		if res.IsError {
			status = "error"
		}
		fmt.Fprintf(w, "    %s %s\n", status, clip(res.Text, 150))
		turn.Messages = append(turn.Messages, request.Message{Role: request.RoleTool, CallID: c.ID, Text: res.Text, IsError: res.IsError})
	}
	return turn
}

// tools are the harness's tools: three resident built-ins and two rare,
// dangerous ones deferred by their own flag. Handlers record that they ran
// and return canned data.
func tools(ran *[]string) []registry.Tool {
	handler := func(name, answer string) registry.Handler {
		return func(ctx context.Context, params json.RawMessage) (registry.Result, error) {
			c, _ := execute.CallFromContext(ctx)
			*ran = append(*ran, name+" "+string(params)+" ("+c.ID+")")
			return registry.Result{Text: answer}, nil
		}
	}
	return []registry.Tool{
		{Name: "Bash", Description: "Run a shell command in the workspace.",
			RawSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"],"additionalProperties":false}`),
			Handler:   handler("Bash", "exit 0")},
		{Name: "Read", Description: "Read a file.",
			RawSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`),
			Handler:   handler("Read", "...")},
		{Name: "Write", Description: "Write a file. Relative paths are inside the workspace.",
			RawSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"],"additionalProperties":false}`),
			Handler:   handler("Write", "written")},
		{Name: "Deploy", Description: "Deploy the current build to an environment.", DeferLoading: registry.DeferTrue,
			RawSchema: json.RawMessage(`{"type":"object","properties":{"env":{"type":"string","enum":["staging","production"]}},"required":["env"],"additionalProperties":false}`),
			Handler:   handler("Deploy", "deployed")},
		{Name: "DropDatabase", Description: "Drop a database. Irreversible.", DeferLoading: registry.DeferTrue,
			RawSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false}`),
			Handler:   handler("DropDatabase", "dropped")},
	}
}

// noRmRf blocks recursive forced deletions; the reason reaches the model.
func noRmRf(ctx context.Context, c *execute.Call) execute.Verdict {
	var p struct {
		Command string `json:"command"`
	}
	if err := json.Unmarshal(c.Params, &p); err != nil {
		return execute.Verdict{Block: true, Reason: "params are not an object"}
	}
	if strings.Contains(p.Command, "rm -rf") {
		return execute.Verdict{Block: true, Reason: "recursive forced deletion is not allowed here; delete specific build outputs (make clean) instead"}
	}
	return execute.Verdict{}
}

// sandboxWrites rewrites a relative path into the workspace; the rewritten
// params are validated again before the handler sees them.
func sandboxWrites(ctx context.Context, c *execute.Call) execute.Verdict {
	var p map[string]any
	if err := json.Unmarshal(c.Params, &p); err != nil {
		return execute.Verdict{Block: true, Reason: "params are not an object"}
	}
	path, _ := p["path"].(string)
	if strings.HasPrefix(path, "/") {
		return execute.Verdict{}
	}
	p["path"] = "/workspace/" + path
	out, err := json.Marshal(p) // sorted keys: deterministic
	if err != nil {
		return execute.Verdict{Block: true, Reason: err.Error()}
	}
	return execute.Verdict{Params: out}
}

// describe turns the dispatcher's governance events into one line each.
func describe(e execute.Event) string {
	via := ""
	if e.Via != "" {
		via = " (via " + e.Via + ")"
	}
	switch e.Kind {
	case "denied", "approved", "rejected":
		return fmt.Sprintf("%s %s%s by %s", e.Kind, e.Tool, via, e.Rule)
	case "allowed":
		return fmt.Sprintf("allowed %s%s (%s)", e.Tool, via, e.Rule)
	case "blocked", "rewritten":
		return fmt.Sprintf("%s %s%s by hook %s", e.Kind, e.Tool, via, e.Hook)
	case "unloaded", "invalid", "unknown_tool", "bad_input":
		return fmt.Sprintf("%s %s%s", e.Kind, e.Tool, via)
	}
	return ""
}

// recorded replays the recorded replies of one provider, in order.
type recorded struct {
	replies [][]byte
}

//go:embed testdata
var recordings embed.FS

// newRecorded loads the recorded replies of o.Provider: testdata/PROVIDER/
// 01.json, 02.json … (whole bodies) or 01.sse … (streams).
func newRecorded(o Options) (*recorded, error) {
	ext := ".json"
	if o.Stream {
		ext = ".sse"
	}
	var r recorded
	for i := 1; ; i++ {
		b, err := recordings.ReadFile(fmt.Sprintf("testdata/%s/%02d%s", o.Provider, i, ext))
		if err != nil {
			if i == 1 {
				return nil, fmt.Errorf("no recorded replies for provider %q: %w", o.Provider, err)
			}
			return &r, nil
		}
		r.replies = append(r.replies, b)
	}
}

// Next returns the next recorded reply.
func (r *recorded) Next(ctx context.Context, body []byte) ([]byte, error) {
	if len(r.replies) == 0 {
		return nil, fmt.Errorf("recorded replies exhausted")
	}
	b := r.replies[0]
	r.replies = r.replies[1:]
	return b, nil
}

func toolNames(ts []*registry.Tool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return slices.Clip(out)
}

func clip(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
