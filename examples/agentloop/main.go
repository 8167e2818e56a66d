// Command agentloop is the loop every harness runs — build the request,
// ask the model, run its tool calls, repeat — with toolshelf doing the
// request and the governance. The model is scripted (no network, no key);
// it tries things a harness must stop.
//
// Every call goes through one execute.Dispatcher, resident or deferred,
// direct or through defer_execute:
//
//   - Deny(DropDatabase): refused, whichever way the model calls it;
//   - Ask(Deploy): a callback asks the user, who approves staging only;
//   - hook "no-rm-rf" blocks destructive shell commands;
//   - hook "sandbox-writes" rewrites relative paths into the workspace.
//
// Run it with:
//
//	go run ./examples/agentloop
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
	"github.com/toolshelf/toolshelf/request/wire"
)

// Model is what the loop talks to: it reads a request body and answers
// with the assistant's message. A real harness sends the body to the
// provider; this example replays a script.
type Model interface {
	Next(ctx context.Context, body []byte) (request.Message, error)
}

func main() {
	if err := run(os.Stdout, newScript()); err != nil {
		fmt.Fprintln(os.Stderr, "agentloop:", err)
		os.Exit(1)
	}
}

// maxTurns bounds the loop: a model that never stops calling tools must
// not run forever.
const maxTurns = 20

// run builds the harness and runs one user request to the end.
func run(w io.Writer, model Model) error {
	ctx := context.Background()
	var ran []string // the handlers that actually ran, in order
	reg := registry.New(nil)
	if err := reg.Register(tools(&ran)...); err != nil {
		return err
	}

	disp, err := execute.New(&execute.Options{
		Rules: execute.MustRules("Deny(DropDatabase)", "Ask(Deploy)"),
		Ask: func(ctx context.Context, req execute.AskRequest) (bool, error) {
			var p struct {
				Env string `json:"env"`
			}
			_ = json.Unmarshal(req.Params, &p)
			yes := p.Env == "staging"
			fmt.Fprintf(w, "      ask   %s %s? the user says %s\n", req.Tool, req.Params, map[bool]string{true: "yes", false: "no"}[yes])
			return yes, nil
		},
		Hooks: []execute.Hook{
			{Name: "no-rm-rf", Pattern: "Bash", Before: noRmRf},
			{Name: "sandbox-writes", Pattern: "Write", Before: sandboxWrites},
		},
		OnEvent: func(e execute.Event) {
			if line := describe(e); line != "" {
				fmt.Fprintf(w, "      guard %s\n", line)
			}
		},
	})
	if err != nil {
		return err
	}

	s, err := request.NewSession(request.Config{
		ID:         "agentloop",
		Snapshot:   reg.Snapshot(),
		Provider:   request.Anthropic,
		Model:      "claude-sonnet-4-5",
		System:     "You are a release engineer. Use the tools; explain refusals to the user.",
		Extra:      map[string]json.RawMessage{"max_tokens": json.RawMessage("1024")},
		Dispatcher: disp,
	})
	if err != nil {
		return err
	}
	plan := s.Frozen().Plan()
	fmt.Fprintf(w, "resident: %s\ndeferred: %s\nrules:    Deny(DropDatabase), Ask(Deploy); hooks: no-rm-rf (Bash), sandbox-writes (Write)\n",
		strings.Join(toolNames(plan.Resident()), ", "), strings.Join(toolNames(plan.Deferred()), ", "))

	const user = "Clean the build, write the release notes, deploy, and drop the old test database."
	fmt.Fprintf(w, "\nuser: %s\n", user)
	turn := request.Turn{Messages: []request.Message{{Role: request.RoleUser, Text: user}}}
	var first []byte
	for n := 1; ; n++ {
		if n > maxTurns {
			return fmt.Errorf("no answer after %d turns", maxTurns)
		}
		body, err := s.BuildRequest(turn)
		if err != nil {
			return err
		}
		if first == nil {
			first = body
		}
		shared := fmt.Sprintf("prefix %d bytes, same as request 1", wire.PrefixLen(body))
		if n == 1 {
			shared = fmt.Sprintf("prefix %d bytes: system and tools, frozen", wire.PrefixLen(body))
		}
		if d := wire.Diff(first[:wire.PrefixLen(first)], body[:wire.PrefixLen(body)]); d != nil {
			shared = "PREFIX CHANGED: " + d.String()
		}
		fmt.Fprintf(w, "\nrequest %d (%d bytes, %s)\n", n, len(body), shared)

		reply, err := model.Next(ctx, body)
		if err != nil {
			return err
		}
		if len(reply.ToolCalls) == 0 {
			fmt.Fprintf(w, "model: %s\n", reply.Text)
			break
		}
		turn = request.Turn{Messages: []request.Message{reply}}
		for _, c := range reply.ToolCalls {
			fmt.Fprintf(w, "  → %s %s\n", c.Name, c.Arguments)
			res := s.Call(ctx, c.Name, c.Arguments)
			status := "ok   "
			if res.IsError {
				status = "error"
			}
			fmt.Fprintf(w, "    %s %s\n", status, clip(res.Text, 150))
			turn.Messages = append(turn.Messages, request.Message{Role: request.RoleTool, CallID: c.ID, Text: res.Text, IsError: res.IsError})
		}
	}
	fmt.Fprintf(w, "\nhandlers that ran: %s\n", strings.Join(ran, "; "))
	return nil
}

// tools are the harness's tools: three resident built-ins and two rare,
// dangerous ones deferred by their own flag. Handlers record that they ran
// and return canned data.
func tools(ran *[]string) []registry.Tool {
	handler := func(name, answer string) registry.Handler {
		return func(ctx context.Context, params json.RawMessage) (registry.Result, error) {
			*ran = append(*ran, name+" "+string(params))
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
	case execute.EventDenied, execute.EventApproved, execute.EventRejected:
		return fmt.Sprintf("%s %s%s by %s", e.Kind, e.Tool, via, e.Rule)
	case execute.EventAllowed:
		return fmt.Sprintf("allowed %s%s (%s)", e.Tool, via, e.Rule)
	case execute.EventBlocked, execute.EventRewritten:
		return fmt.Sprintf("%s %s%s by hook %s", e.Kind, e.Tool, via, e.Hook)
	case execute.EventUnloaded, execute.EventInvalid, execute.EventUnknownTool, execute.EventBadInput:
		return fmt.Sprintf("%s %s%s", e.Kind, e.Tool, via)
	}
	return ""
}

// script is the scripted model: one reply per request, in order.
type script struct{ replies []request.Message }

func newScript() *script {
	call := func(id, name, args string) request.ToolCall {
		return request.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
	}
	calls := func(c ...request.ToolCall) request.Message {
		return request.Message{Role: request.RoleAssistant, ToolCalls: c}
	}
	return &script{replies: []request.Message{
		calls(call("c1", "Bash", `{"command":"rm -rf build /"}`)),
		calls(call("c2", "Bash", `{"command":"make clean"}`),
			call("c3", "Write", `{"path":"notes/release.md","content":"# v1.2\n"}`)),
		calls(call("c4", "tool_search", `{"tool_names":["Deploy","DropDatabase"]}`)),
		calls(call("c5", "defer_execute", `{"tool_name":"Deploy","params":{"env":"production"}}`)),
		calls(call("c6", "defer_execute", `{"tool_name":"Deploy","params":{"env":"staging"}}`)),
		calls(call("c7", "defer_execute", `{"tool_name":"DropDatabase","params":{"name":"test_old"}}`)),
		calls(call("c8", "DropDatabase", `{"name":"test_old"}`)),
		{Role: request.RoleAssistant, Text: "Build cleaned, release notes written, deployed to staging. Production needs your approval, and dropping databases is not allowed in this harness."},
	}}
}

// Next returns the next scripted reply.
func (s *script) Next(ctx context.Context, body []byte) (request.Message, error) {
	if len(s.replies) == 0 {
		return request.Message{}, fmt.Errorf("script exhausted")
	}
	m := s.replies[0]
	s.replies = s.replies[1:]
	return m, nil
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
