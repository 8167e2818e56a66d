// Command quickstart is toolshelf's main example: a coding harness with a
// few built-in tools and four real MCP servers (github, playwright,
// kubernetes, filesystem — 249 tools, embedded), run with a scripted model,
// no network and no API key.
//
// It prints the savings account of deferring the MCP servers' tools and
// the context bar, then runs a short conversation in which the model
// searches with tool_search, calls the tool it found through
// defer_execute (past a permission rule and a hook), writes itself a tool
// and calls that too. For every request it prints the size of each section
// and how much of the previous request it shares: the whole prefix, every
// turn.
//
//	go run ./examples/quickstart [-provider openai-chat|openai-responses|anthropic|gemini] [-model NAME] [-window N] [-out DIR] [-ledger]
//
// -model gpt-4o (the default) counts tokens exactly with o200k_base; models
// without a tokenizer here (claude-*, gemini-*) get estimates, marked ~.
// -window is the context window the bar is drawn against (128,000 by
// default, gpt-4o's; 0 means unknown). -out DIR writes every request body
// (turn-01.json, ...) for inspection. The scripted model answers in the
// provider's wire format (request/replytest, with usage simulated from
// each request) and request.DecodeReply reads it; -ledger prints the
// budget.Ledger of those replies at the end.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toolshelf/toolshelf/budget"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/textfmt"
	"github.com/toolshelf/toolshelf/internal/wire"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
	"github.com/toolshelf/toolshelf/request/replytest"
)

// options are the command's flags.
type options struct {
	Provider request.Provider
	Model    string
	// Window is the model's context window in tokens, for the bar; 0 means
	// unknown.
	Window int
	// Out, when set, is a directory to write every request body to.
	Out string
	// Ledger prints the usage ledger at the end: the usage of every reply,
	// its cache reads and writes, and the same requests with every tool
	// resident.
	Ledger bool
}

func main() {
	var o options
	provider := flag.String("provider", string(request.OpenAIChat), "openai-chat, openai-responses, anthropic or gemini")
	flag.StringVar(&o.Model, "model", "gpt-4o", "model name (gpt-* counts tokens exactly; others estimate, marked ~)")
	flag.IntVar(&o.Window, "window", 128000, "context window in tokens for the bar; 0 means unknown")
	flag.StringVar(&o.Out, "out", "", "write every request body to `DIR`/turn-NN.json")
	flag.BoolVar(&o.Ledger, "ledger", false, "print the usage ledger: provider-reported tokens, cache hits, and every tool resident")
	flag.Parse()
	o.Provider = request.Provider(*provider)
	if err := run(os.Stdout, o); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// system is the harness's one fixed instruction.
const system = "You are a coding agent working in the user's repository. Use tools when they help; say what you did."

// run builds the harness and runs the scripted conversation, writing the
// report to w. Its output is deterministic.
func run(w io.Writer, o options) error {
	if o.Out != "" {
		if err := os.MkdirAll(o.Out, 0o755); err != nil {
			return err
		}
	}

	// 1. The registry: built-in tools, and one group per MCP server.
	var sess *request.Session // ToolCreate's handler registers into it
	reg, servers, err := newRegistry(&sess)
	if err != nil {
		return err
	}

	// 2. The policy: MCP tools are deferred (only their names stay in
	// context, in tool_search's index); built-in tools stay resident.
	policy := &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("harness", "Defer(mcp__*)")}}

	// 3. The dispatcher: one governed pipeline for every call, direct or
	// through defer_execute.
	var events []string
	disp, err := newDispatcher(func(line string) { events = append(events, line) })
	if err != nil {
		return err
	}

	// 4. The session: the prefix (system + tools) is rendered and frozen
	// once, here.
	sess, err = request.NewSession(request.Config{
		ID:         "quickstart",
		Snapshot:   reg.Snapshot(),
		Policy:     policy,
		Provider:   o.Provider,
		Model:      o.Model,
		System:     system,
		Extra:      outputBound(o.Provider),
		Dispatcher: disp,
	})
	if err != nil {
		return err
	}
	counter := budget.CounterForModel(o.Model)
	writeHeader(w, o, sess.Plan(), servers, counter)

	// 5. The savings account: what deferral takes out of every request.
	acc, err := budget.AccountFor(sess, counter)
	if err != nil {
		return err
	}
	writeAccount(w, acc)
	ledger := budget.NewLedger(acc)

	// 6. The conversation, one request per model turn.
	bodies, err := converse(w, o, sess, counter, acc, ledger, &events)
	if err != nil {
		return err
	}
	return writeSummary(w, o, bodies, acc, ledger)
}

// writeHeader prints what the harness holds: its tools, its policy's
// split and how tokens are counted.
func writeHeader(w io.Writer, o options, plan *deferral.Plan, servers []string, counter *budget.Counter) {
	fmt.Fprintf(w, "toolshelf quickstart — %d built-in tools and %d MCP servers (%s tools), no network, no API key\n",
		len(plan.Resident()), len(servers), strings.Join(servers, ", "))
	fmt.Fprintf(w, "policy:  Defer(mcp__*): %d tools resident, %d deferred (names only, in tool_search's index)\n",
		len(plan.Resident()), len(plan.Deferred()))
	tokens := "exact, " + string(counter.Encoding())
	if !counter.Exact() {
		tokens = "estimated (~), no tokenizer for this model: " + counter.Method()
	}
	fmt.Fprintf(w, "session: %s, model %s, tokens %s\n\n", o.Provider, o.Model, tokens)
}

// converse runs the scripted conversation, one request per model turn,
// printing each request's sections and each call's events and result
// (the dispatcher's events are collected in *events). It returns the
// request bodies.
func converse(w io.Writer, o options, sess *request.Session, counter *budget.Counter, acc *budget.Account, ledger *budget.Ledger, events *[]string) ([][]byte, error) {
	fmt.Fprintf(w, "\nThe conversation: a scripted model, one request per model turn; \"shares\" counts the bytes\na request has in common with the previous one, which the provider's prefix cache can reuse.\n")
	var bodies [][]byte
	turn := request.Turn{Messages: []request.Message{{Role: request.RoleUser, Text: script[0].user}}}
	fmt.Fprintf(w, "\nuser      %s\n", script[0].user)
	for i, st := range script {
		body, err := sess.BuildRequest(turn)
		if err != nil {
			return nil, fmt.Errorf("turn %d: %w", i+1, err)
		}
		bodies = append(bodies, body)
		m := counter.Measure(budget.Sections(sess))
		writeTurn(w, bodies, m, budget.Tokens{N: acc.Tokens.NetSavingAfterEntry, Estimate: acc.Tokens.Estimate})
		if o.Out != "" {
			if err := os.WriteFile(filepath.Join(o.Out, fmt.Sprintf("turn-%02d.json", len(bodies))), body, 0o644); err != nil {
				return nil, err
			}
		}
		if i == 0 {
			bar := budget.BarFor(m, budget.Tokens{}, o.Window)
			fmt.Fprintf(w, "  bar     %s\n", bar.Render(nil))
		}

		// The model answers in its provider's wire format; the decoder
		// reads the message and the usage. Its tool calls run through
		// Session.Call.
		var prev []byte
		if len(bodies) > 1 {
			prev = bodies[len(bodies)-2]
		}
		reply, err := answer(o.Provider, i+1, st.reply, counter, prev, body)
		if err != nil {
			return nil, fmt.Errorf("turn %d: %w", i+1, err)
		}
		ledger.Add(reply.Usage)
		if reply.Message.Text != "" {
			fmt.Fprintf(w, "model     %s\n", reply.Message.Text)
		}
		turn = runCalls(w, sess, reply.Message, events)
		if len(reply.Message.ToolCalls) == 0 {
			if i+1 == len(script) {
				break
			}
			next := script[i+1].user
			fmt.Fprintf(w, "\nuser      %s\n", next)
			turn.Messages = append(turn.Messages, request.Message{Role: request.RoleUser, Text: next})
		}
	}
	return bodies, nil
}

// runCalls runs the model message's tool calls through Session.Call,
// printing each call, its events and its result, and returns the next
// turn: the message and the results.
func runCalls(w io.Writer, sess *request.Session, msg request.Message, events *[]string) request.Turn {
	ctx := context.Background()
	turn := request.Turn{Messages: []request.Message{msg}}
	for _, c := range msg.ToolCalls {
		fmt.Fprintf(w, "model  →  %s %s\n", c.Name, clip(string(c.Arguments), 140))
		before := sess.LoadedNames()
		*events = (*events)[:0]
		res := sess.Call(ctx, c.Name, c.Arguments)
		for _, e := range *events {
			fmt.Fprintf(w, "  %s\n", e)
		}
		writeResult(w, c.Name, res, before, sess.LoadedNames())
		turn.Messages = append(turn.Messages, request.Message{Role: request.RoleTool, CallID: c.ID, Text: res.Text, IsError: res.IsError})
	}
	return turn
}

// writeSummary prints how often the prefix stayed byte-identical, what
// deferral saved over the requests and, with -ledger, the ledger.
func writeSummary(w io.Writer, o options, bodies [][]byte, acc *budget.Account, ledger *budget.Ledger) error {
	prefix := wire.PrefixLen(bodies[0])
	same := 0
	for _, b := range bodies {
		if wire.PrefixLen(b) == prefix && sharedPrefix(bodies[0], b) >= prefix {
			same++
		}
	}
	fmt.Fprintf(w, "\nThe prefix (system + tools, %s bytes) was byte-identical in %d of %d requests.\n",
		textfmt.Thousands(prefix), same, len(bodies))
	saving := budget.Tokens{N: acc.Tokens.NetSavingAfterEntry, Estimate: acc.Tokens.Estimate}
	fmt.Fprintf(w, "Without deferral each request would carry %s more tokens: %s over these %d requests.\n",
		saving, budget.Tokens{N: saving.N * len(bodies), Estimate: saving.Estimate}, len(bodies))
	if o.Out != "" {
		fmt.Fprintf(w, "Request bodies: %s/turn-01.json … turn-%02d.json\n", o.Out, len(bodies))
	}
	if o.Ledger {
		fmt.Fprintln(w)
		if err := ledger.Write(w); err != nil {
			return err
		}
	}
	return nil
}

// writeAccount prints the savings account in the form of the published
// 60-tool accounting.
func writeAccount(w io.Writer, a *budget.Account) {
	t := a.Tokens
	th := textfmt.Thousands
	tok := func(n int) string { return budget.Tokens{N: n, Estimate: t.Estimate}.String() }
	fmt.Fprintf(w, "Savings account (size of a tool = description + compact schema, in characters)\n")
	fmt.Fprintf(w, "  every tool resident       %3d tools  %9s chars  %8s tokens\n", a.ToolsTotal, th(a.CharsTotal), tok(t.All))
	fmt.Fprintf(w, "  deferred                  %3d tools  %9s chars  %8s tokens  (%.0f%%)\n", a.DeferredCount, th(a.DeferredChars), tok(t.Deferred), a.DeferredShare*100)
	fmt.Fprintf(w, "  resident                  %3d tools  %9s chars  %8s tokens\n", a.ResidentCount, th(a.ResidentChars), tok(t.Resident))
	fmt.Fprintf(w, "  + tool_search, defer_execute         %9s chars  %8s tokens\n", th(a.EntryChars), tok(t.Entry))
	fmt.Fprintf(w, "  + index of deferred names            %9s chars  %8s tokens\n", th(a.IndexChars), tok(t.Index))
	fmt.Fprintf(w, "  saved on every request               %9s chars  %8s tokens  (net of the entry tools)\n", th(a.NetSavingAfterEntry), tok(t.NetSavingAfterEntry))
	fmt.Fprintf(w, "  schema-to-name ratio: %s:1 for the deferred tools; longest %s (%s chars)\n",
		th(int(a.RatioDeferred+0.5)), a.LongestName, th(a.LongestChars))
}

// writeTurn prints the latest request: its size by section and what it
// shares with the previous request.
func writeTurn(w io.Writer, bodies [][]byte, m *budget.Measurement, saving budget.Tokens) {
	n := len(bodies)
	body := bodies[n-1]
	tools := m.ByClass(budget.ClassTool).Tokens.Add(m.ByClass(budget.ClassEntry).Tokens)
	fmt.Fprintf(w, "request %d  %s bytes · %s tokens (%s if every tool were resident)\n",
		n, textfmt.Thousands(len(body)), m.Total.Tokens, m.Total.Tokens.Add(saving))
	fmt.Fprintf(w, "  tokens  system %s · tools %s · index %s · messages %s · injected blocks %s\n",
		m.ByClass(budget.ClassSystem).Tokens, tools, m.ByClass(budget.ClassIndex).Tokens,
		m.ByClass(budget.ClassMessage).Tokens, m.ByClass(budget.ClassInjection).Tokens)
	prefix := wire.PrefixLen(body)
	if n == 1 {
		fmt.Fprintf(w, "  prefix  %s bytes (system + tools): cached by the provider from the next request on\n", textfmt.Thousands(prefix))
		return
	}
	prev := bodies[n-2]
	shared := sharedPrefix(prev, body)
	verdict := "the whole prefix"
	if shared < prefix || wire.PrefixLen(prev) != prefix {
		verdict = "PREFIX BROKEN at " + wire.PathAt(body, shared)
	}
	fmt.Fprintf(w, "  prefix  %s bytes; shares %s bytes with request %d: %s and %s bytes of history\n",
		textfmt.Thousands(prefix), textfmt.Thousands(shared), n-1, verdict, textfmt.Thousands(max(shared-prefix, 0)))
}

// writeResult prints what a call returned: for tool_search the tools it
// loaded, otherwise the result's text.
func writeResult(w io.Writer, name string, res registry.Result, before, after []string) {
	status := "result"
	if res.IsError {
		status = "error "
	}
	if name == registry.ToolSearchName && !res.IsError {
		var loaded []string
		for _, n := range after {
			if !slices.Contains(before, n) {
				loaded = append(loaded, n)
			}
		}
		fmt.Fprintf(w, "  %s  %s chars; schemas loaded: %s\n", status, textfmt.Thousands(utf8.RuneCountInString(res.Text)), strings.Join(loaded, ", "))
		return
	}
	fmt.Fprintf(w, "  %s  %s\n", status, clip(res.Text, 110))
}

func clip(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// step is one turn of the scripted model: the user's message that starts
// it, if any, and the model's reply to the request.
type step struct {
	user  string
	reply request.Message
}

func call(id, name, args string) request.Message {
	return request.Message{Role: request.RoleAssistant, ToolCalls: []request.ToolCall{{ID: id, Name: name, Arguments: json.RawMessage(args)}}}
}

// script is what the model "says". A real harness sends each request body
// to the provider and reads the reply instead.
var script = []step{
	{
		user:  `Open a pull request in acme/webapp from fix-typo into main, titled "Fix typo in README".`,
		reply: call("call_1", "tool_search", `{"queries":["create pull request"]}`),
	},
	{reply: call("call_2", "defer_execute", `{"tool_name":"mcp__github__create_pull_request","params":{"owner":"acme","repo":"webapp","title":"Fix typo in README","head":"fix-typo","base":"main"}}`)},
	{reply: request.Message{Role: request.RoleAssistant, Text: "Opened pull request #42 (as a draft): https://github.com/acme/webapp/pull/42"}},
	{
		user:  "How many TODO comments are left in the repository? Write yourself a tool if none fits.",
		reply: call("call_3", "ToolCreate", `{"name":"count_todos","description":"Count TODO comments in the files under a directory. Returns {\"todos\": N, \"files\": M}.","input_schema":{"type":"object","properties":{"path":{"type":"string","description":"Directory to scan."}},"required":["path"]},"script":"grep -rc TODO \"$path\" | awk -F: '$2>0{f++; n+=$2} END{print n, f}'"}`),
	},
	{reply: call("call_4", "tool_search", `{"tool_names":["count_todos"]}`)},
	{reply: call("call_5", "defer_execute", `{"tool_name":"count_todos","params":{"path":"."}}`)},
	{reply: request.Message{Role: request.RoleAssistant, Text: "There are 17 TODO comments left, in 9 files."}},
}

// answer is the scripted model's side: reply n, encoded as provider p
// sends it (request/replytest), with usage simulated from the request
// body (and prev, the one before) and counted by c, then decoded as a
// harness decodes a real reply.
func answer(p request.Provider, n int, m request.Message, c *budget.Counter, prev, body []byte) (request.Reply, error) {
	output := m.Text
	for _, call := range m.ToolCalls {
		output += call.Name + string(call.Arguments)
	}
	count := func(s string) int { return c.Count(budget.KindJSON, s).N }
	raw, _, err := replytest.Encode(p, n, m, replytest.Simulate(p, count, prev, body, output))
	if err != nil {
		return request.Reply{}, err
	}
	return request.DecodeReply(p, raw)
}

// outputBound is the request's output-token bound where the provider
// requires one: Anthropic refuses a request without max_tokens.
func outputBound(p request.Provider) map[string]json.RawMessage {
	if p != request.Anthropic {
		return nil
	}
	return map[string]json.RawMessage{"max_tokens": json.RawMessage("4096")}
}
