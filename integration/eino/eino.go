package eino

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/eino-contrib/jsonschema"

	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/integration/internal/shelftools"
	"github.com/toolshelf/toolshelf/request"
)

// An Adapter is one [request.Session] seen through eino's tool interfaces.
// Its tool list is read once from the session's frozen prefix, so it is the
// same for the life of the session. It is safe for concurrent use.
type Adapter struct {
	s      *request.Session
	system string
	tools  []tool.BaseTool
	infos  []*schema.ToolInfo
	names  map[string]bool
}

// New adapts s. The session must use the portable tool search
// (request.Portable, the default) and an encoder whose tools[] carry plain
// function definitions (Anthropic, Chat Completions, Responses, Gemini);
// otherwise New returns an error wrapping errors.ErrUnsupported.
func New(s *request.Session) (*Adapter, error) {
	system, defs, err := shelftools.Read(s)
	if err != nil {
		return nil, fmt.Errorf("eino: %w", err)
	}
	a := &Adapter{s: s, system: system, names: make(map[string]bool, len(defs))}
	for _, d := range defs {
		var js jsonschema.Schema
		if err := json.Unmarshal(d.Schema, &js); err != nil {
			return nil, fmt.Errorf("eino: tool %q: schema: %w", d.Name, err)
		}
		info := &schema.ToolInfo{Name: d.Name, Desc: d.Description, ParamsOneOf: schema.NewParamsOneOfByJSONSchema(&js)}
		a.infos = append(a.infos, info)
		a.tools = append(a.tools, &shelfTool{s: s, info: info})
		a.names[d.Name] = true
	}
	return a, nil
}

// Tools returns the session's tools as eino InvokableTools, in the order the
// session sends them; each call runs [request.Session.Call].
func (a *Adapter) Tools() []tool.BaseTool {
	return append([]tool.BaseTool(nil), a.tools...)
}

// ToolsConfig returns a ChatModelAgent's tool configuration: [Adapter.Tools],
// and a handler that sends a call of any other name (a deferred tool the
// model calls by its own name) to [request.Session.Call] as well, whose
// dispatcher answers it — never a tool handler called directly.
func (a *Adapter) ToolsConfig() adk.ToolsConfig {
	var c adk.ToolsConfig
	c.Tools = a.Tools()
	c.UnknownToolsHandler = func(ctx context.Context, name, input string) (string, error) {
		return call(ctx, a.s, name, input), nil
	}
	return c
}

// Instruction returns the session's system text: its System and
// SystemItems, and with the OpenAI encoders the name index.
func (a *Adapter) Instruction() string { return a.system }

// Middleware returns the ChatModelAgent middleware that fixes the tool list:
// before every model call it sets the list to the session's (and clears
// eino's deferred tool list), whatever handlers before it did. Register it
// last in ChatModelAgentConfig.Handlers. Before the run it adds the
// session's tools the agent lacks, sets an empty instruction to
// [Adapter.Instruction], and refuses a run whose instruction is another
// text or whose tools include another tool of a session tool's name.
func (a *Adapter) Middleware() adk.ChatModelAgentMiddleware {
	return &pin{BaseChatModelAgentMiddleware: &adk.BaseChatModelAgentMiddleware{}, a: a}
}

type pin struct {
	*adk.BaseChatModelAgentMiddleware
	a *Adapter
}

func (p *pin) BeforeAgent(ctx context.Context, rc *adk.ChatModelAgentContext) (context.Context, *adk.ChatModelAgentContext, error) {
	if rc == nil {
		return ctx, rc, nil
	}
	n := *rc
	switch n.Instruction {
	case "":
		n.Instruction = p.a.system
	case p.a.system:
	default:
		return ctx, nil, fmt.Errorf("eino: the agent's instruction differs from the session's system text: leave Instruction empty and set request.Config.System")
	}
	have := make(map[string]bool, len(n.Tools))
	for _, t := range n.Tools {
		if st, ok := t.(*shelfTool); ok && st.s == p.a.s {
			have[st.info.Name] = true
			continue
		}
		info, err := t.Info(ctx)
		if err != nil {
			return ctx, nil, fmt.Errorf("eino: agent tool info: %w", err)
		}
		if p.a.names[info.Name] {
			return ctx, nil, fmt.Errorf("eino: agent tool %q is not the session's: register it in the toolshelf registry, not in eino", info.Name)
		}
	}
	n.Tools = append([]tool.BaseTool(nil), n.Tools...)
	for _, t := range p.a.tools {
		if !have[t.(*shelfTool).info.Name] {
			n.Tools = append(n.Tools, t)
		}
	}
	n.ToolSearchTool = nil
	return ctx, &n, nil
}

func (p *pin) BeforeModelRewriteState(ctx context.Context, st *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	st.ToolInfos = append(st.ToolInfos[:0:0], p.a.infos...)
	st.DeferredToolInfos = nil
	return ctx, st, nil
}

// shelfTool is one tool of the session's list.
type shelfTool struct {
	s    *request.Session
	info *schema.ToolInfo
}

func (t *shelfTool) Info(context.Context) (*schema.ToolInfo, error) { return t.info, nil }

func (t *shelfTool) InvokableRun(ctx context.Context, args string, _ ...tool.Option) (string, error) {
	return call(ctx, t.s, t.info.Name, args), nil
}

// call runs one call of the model through the session, with eino's call ID
// for the dispatcher's hooks and events. Empty arguments are the empty
// object, as the providers send a call without parameters.
func call(ctx context.Context, s *request.Session, name, args string) string {
	if id := compose.GetToolCallID(ctx); id != "" {
		ctx = execute.WithCallID(ctx, id)
	}
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	return s.Call(ctx, name, json.RawMessage(args)).Text
}
