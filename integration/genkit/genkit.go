package genkit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/firebase/genkit/go/ai"

	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/integration/internal/shelftools"
	"github.com/toolshelf/toolshelf/request"
)

// An Adapter is one [request.Session] seen through genkit's middleware
// hooks. Its tool list is read once from the session's frozen prefix, so it
// is the same for the life of the session. It is safe for concurrent use.
type Adapter struct {
	s       *request.Session
	system  string
	names   []string
	descs   []string
	schemas []map[string]any
	known   map[string]bool
}

// New adapts s. The session must use the portable tool search
// (request.Portable, the default) and an encoder whose tools[] carry plain
// function definitions (Anthropic, Chat Completions, Responses, Gemini);
// otherwise New returns an error wrapping errors.ErrUnsupported.
func New(s *request.Session) (*Adapter, error) {
	system, defs, err := shelftools.Read(s)
	if err != nil {
		return nil, fmt.Errorf("genkit: %w", err)
	}
	a := &Adapter{s: s, system: system, known: make(map[string]bool, len(defs))}
	for _, d := range defs {
		var js map[string]any
		if err := json.Unmarshal(d.Schema, &js); err != nil {
			return nil, fmt.Errorf("genkit: tool %q: schema: %w", d.Name, err)
		}
		a.names = append(a.names, d.Name)
		a.descs = append(a.descs, d.Description)
		a.schemas = append(a.schemas, js)
		a.known[d.Name] = true
	}
	return a, nil
}

// Middleware returns the middleware for ai.WithUse (named "toolshelf"). Its
// hooks, made anew for each Generate call:
//   - Tools: the session's tools, each running [request.Session.Call];
//   - WrapModel: before every model call, the request's tools become the
//     session's definitions in the session's order, and its first message
//     the session's system text (added when the request has none; a request
//     whose system message is another text, or that has a system message
//     anywhere but first, is refused with an error naming the fix, since the
//     session's system text is the one its index and instructions were
//     frozen with, and is the only system text the model reads);
//   - WrapTool: a call of a session tool carries the model's call reference
//     to the dispatcher's hooks and events (execute.WithCallID).
//
// Put it last in WithUse: it has the final word on the tool list.
func (a *Adapter) Middleware() ai.Middleware { return middleware{a} }

type middleware struct{ a *Adapter }

func (middleware) Name() string { return "toolshelf" }

func (m middleware) New(context.Context) (*ai.Hooks, error) {
	a := m.a
	tools := make([]ai.Tool, len(a.names))
	for i, name := range a.names {
		tools[i] = ai.NewTool(name, a.descs[i], a.run(name))
	}
	return &ai.Hooks{Tools: tools, WrapModel: a.wrapModel, WrapTool: a.wrapTool}, nil
}

// run is the genkit tool function of the session's tool name.
func (a *Adapter) run(name string) ai.ToolFunc[any, string] {
	return func(tc *ai.ToolContext, input any) (string, error) {
		args := json.RawMessage("{}")
		if input != nil {
			b, err := json.Marshal(input)
			if err != nil {
				return "", fmt.Errorf("genkit: tool %q arguments: %w", name, err)
			}
			args = b
		}
		return a.s.Call(tc.Context, name, args).Text, nil
	}
}

func (a *Adapter) wrapModel(ctx context.Context, p *ai.ModelParams, next ai.ModelNext) (*ai.ModelResponse, error) {
	r := *p.Request
	r.Tools = make([]*ai.ToolDefinition, len(a.names))
	for i := range a.names {
		r.Tools[i] = &ai.ToolDefinition{Name: a.names[i], Description: a.descs[i], InputSchema: a.schemas[i]}
	}
	msgs, err := a.withSystem(r.Messages)
	if err != nil {
		return nil, err
	}
	r.Messages = msgs
	q := *p
	q.Request = &r
	return next(ctx, &q)
}

func (a *Adapter) withSystem(msgs []*ai.Message) ([]*ai.Message, error) {
	for i, m := range msgs {
		if i > 0 && m != nil && m.Role == ai.RoleSystem {
			return nil, fmt.Errorf("genkit: the request's message %d is a system message: the session's system text, first, is the only one a request carries; put what it says in request.Config.System, or send it as a user message", i)
		}
	}
	if len(msgs) > 0 && msgs[0] != nil && msgs[0].Role == ai.RoleSystem {
		if msgs[0].Text() != a.system {
			return nil, fmt.Errorf("genkit: the request's system message differs from the session's system text: leave ai.WithSystem out and set request.Config.System")
		}
		return msgs, nil
	}
	if a.system == "" {
		return msgs, nil
	}
	out := make([]*ai.Message, 0, len(msgs)+1)
	return append(append(out, ai.NewSystemTextMessage(a.system)), msgs...), nil
}

func (a *Adapter) wrapTool(ctx context.Context, p *ai.ToolParams, next ai.ToolNext) (*ai.MultipartToolResponse, error) {
	if p.Request != nil && p.Request.Ref != "" && a.known[p.Request.Name] {
		ctx = execute.WithCallID(ctx, p.Request.Ref)
	}
	return next(ctx, p)
}
