package eino_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/middlewares/dynamictool/toolsearch"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/eino-contrib/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/execute"
	shelfeino "github.com/toolshelf/toolshelf/integration/eino"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// The task: "What is the weather in Paris?" — get_weather is deferred, so
// the model must find it, load it and call it.
const (
	task        = "What is the weather in Paris?"
	weatherText = "Paris: 18°C, light rain"
)

// catalog is the tools of both runs: one resident, four deferred.
var catalog = []struct {
	name, desc, schema string
	deferred           bool
}{
	{"read_file", "Read a text file from the workspace.", `{"type":"object","properties":{"path":{"type":"string","description":"Path relative to the workspace."}},"required":["path"]}`, false},
	{"get_weather", "Current weather for a city: temperature and conditions.", `{"type":"object","properties":{"city":{"type":"string","description":"City name."}},"required":["city"],"additionalProperties":false}`, true},
	{"get_stock_price", "Latest trade price of a stock ticker.", `{"type":"object","properties":{"ticker":{"type":"string"}},"required":["ticker"]}`, true},
	{"convert_currency", "Convert an amount between two currencies.", `{"type":"object","properties":{"amount":{"type":"number"},"from":{"type":"string"},"to":{"type":"string"}},"required":["amount","from","to"]}`, true},
	{"send_email", "Send an email to one recipient.", `{"type":"object","properties":{"to":{"type":"string"},"subject":{"type":"string"},"body":{"type":"string"}},"required":["to","subject","body"]}`, true},
}

// handlers records the calls that reached a tool's handler.
type handlers struct {
	mu    sync.Mutex
	calls []string // "name args"
}

func (h *handlers) run(name string, args json.RawMessage) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, name+" "+string(args))
	if name == "get_weather" {
		return weatherText
	}
	return name + " ran"
}

// scripted is a ToolCallingChatModel that plays a script, one step per
// model call, and records the tool list each call carried.
type scripted struct {
	mu    sync.Mutex
	steps []func(in []*schema.Message) (*schema.Message, error)
	lists [][]*schema.ToolInfo
}

func (m *scripted) Generate(_ context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	o := model.GetCommonOptions(&model.Options{}, opts...)
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len(m.lists)
	m.lists = append(m.lists, o.Tools)
	if n >= len(m.steps) {
		return nil, fmt.Errorf("scripted model: call %d past the script's %d steps", n+1, len(m.steps))
	}
	return m.steps[n](in)
}

func (m *scripted) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

func (m *scripted) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return m, nil }

func toolCall(id, name, args string) *schema.Message {
	return schema.AssistantMessage("", []schema.ToolCall{{ID: id, Type: "function", Function: schema.FunctionCall{Name: name, Arguments: args}}})
}

// lastTool returns the last message's content if it is a tool result.
func lastTool(in []*schema.Message) (string, error) {
	last := in[len(in)-1]
	if last.Role != schema.Tool {
		return "", fmt.Errorf("scripted model: last message is %s, want a tool result", last.Role)
	}
	return last.Content, nil
}

// expect continues the script with next when the last tool result
// contains want.
func expect(want string, next *schema.Message) func([]*schema.Message) (*schema.Message, error) {
	return func(in []*schema.Message) (*schema.Message, error) {
		got, err := lastTool(in)
		if err != nil {
			return nil, err
		}
		if !strings.Contains(got, want) {
			return nil, fmt.Errorf("scripted model: tool result %q lacks %q", got, want)
		}
		return next, nil
	}
}

// answer ends the script with the last tool result as the answer.
func answer(in []*schema.Message) (*schema.Message, error) {
	got, err := lastTool(in)
	if err != nil {
		return nil, err
	}
	return schema.AssistantMessage("The weather: "+got, nil), nil
}

// listJSON is a tool list as a provider encoder reads it: name,
// description and the parameters' JSON Schema, in order.
func listJSON(t *testing.T, infos []*schema.ToolInfo) string {
	t.Helper()
	type def struct {
		Name        string             `json:"name"`
		Description string             `json:"description"`
		Parameters  *jsonschema.Schema `json:"parameters"`
	}
	defs := make([]def, 0, len(infos))
	for _, info := range infos {
		d := def{Name: info.Name, Description: info.Desc}
		if info.ParamsOneOf != nil {
			js, err := info.ParamsOneOf.ToJSONSchema()
			require.NoError(t, err)
			d.Parameters = js
		}
		defs = append(defs, d)
	}
	b, err := json.Marshal(defs)
	require.NoError(t, err)
	return string(b)
}

func names(infos []*schema.ToolInfo) []string {
	out := make([]string, 0, len(infos))
	for _, info := range infos {
		out = append(out, info.Name)
	}
	return out
}

// run runs the agent on the task to its end and returns the final answer.
func run(t *testing.T, ctx context.Context, agent adk.Agent) string {
	t.Helper()
	it := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, task)
	var final string
	for {
		ev, ok := it.Next()
		if !ok {
			break
		}
		require.NoError(t, ev.Err)
		if ev.Output != nil && ev.Output.MessageOutput != nil {
			msg, err := ev.Output.MessageOutput.GetMessage()
			require.NoError(t, err)
			if msg.Role == schema.Assistant && len(msg.ToolCalls) == 0 {
				final = msg.Content
			}
		}
	}
	return final
}

// shelf builds the toolshelf side: a registry (registered in a shuffled
// order), a dispatcher whose hook records what it saw, and the session.
func shelf(t *testing.T, h *handlers, seen *[]execute.Call) *request.Session {
	t.Helper()
	reg := registry.New(nil)
	order := rand.Perm(len(catalog))
	for _, i := range order {
		c := catalog[i]
		tl := registry.Tool{Name: c.name, Description: c.desc, RawSchema: json.RawMessage(c.schema),
			Handler: func(_ context.Context, args json.RawMessage) (registry.Result, error) {
				return registry.Result{Text: h.run(c.name, args)}, nil
			}}
		if c.deferred {
			tl.DeferLoading = registry.DeferTrue
		}
		require.NoError(t, reg.Register(tl))
	}
	var mu sync.Mutex
	disp, err := execute.New(&execute.Options{Hooks: []execute.Hook{{Name: "audit", Before: func(_ context.Context, c *execute.Call) execute.Verdict {
		mu.Lock()
		defer mu.Unlock()
		*seen = append(*seen, *c)
		return execute.Verdict{}
	}}}})
	require.NoError(t, err)
	s, err := request.NewSession(request.Config{ID: "eino-test", Snapshot: reg.Snapshot(), Provider: request.Anthropic,
		Model: "claude-sonnet-4-5", System: "You answer questions with the tools you have.", Dispatcher: disp,
		Extra: map[string]json.RawMessage{"max_tokens": json.RawMessage("1024")}})
	require.NoError(t, err)
	return s
}

// TestAgentTask runs the same task twice with eino's real ChatModelAgent
// loop and a scripted model: through toolshelf (the tool list the same on
// every model call) and through eino's own toolsearch middleware (the list
// grows after the search).
func TestAgentTask(t *testing.T) {
	ctx := context.Background()

	var shelfLists [][]*schema.ToolInfo
	t.Run("toolshelf", func(t *testing.T) {
		h := &handlers{}
		var seen []execute.Call
		s := shelf(t, h, &seen)
		a, err := shelfeino.New(s)
		require.NoError(t, err)
		m := &scripted{steps: []func([]*schema.Message) (*schema.Message, error){
			func([]*schema.Message) (*schema.Message, error) {
				return toolCall("call_1", "tool_search", `{"queries":["weather city"]}`), nil
			},
			expect("get_weather", toolCall("call_2", "defer_execute", `{"tool_name":"get_weather","params":{"city":"Paris"}}`)),
			answer,
		}}
		agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "assistant", Description: "answers questions",
			Model: m, ToolsConfig: a.ToolsConfig(), Handlers: []adk.ChatModelAgentMiddleware{a.Middleware()}})
		require.NoError(t, err)

		final := run(t, ctx, agent)
		assert.Equal(t, "The weather: "+weatherText, final)

		require.Len(t, m.lists, 3)
		first := listJSON(t, m.lists[0])
		for i, l := range m.lists {
			assert.Equal(t, first, listJSON(t, l), "tool list of model call %d", i+1)
		}
		assert.Equal(t, []string{"read_file", "tool_search", "defer_execute"}, names(m.lists[0]))
		t.Logf("toolshelf: model calls %d, tool list on each: %v (%d bytes)", len(m.lists), names(m.lists[0]), len(first))

		// The list is the session's own definitions: index in tool_search's
		// description, schemas as the session sends them.
		assert.Contains(t, m.lists[0][1].Desc, "<available_deferred_tools>\nconvert_currency\nget_stock_price\nget_weather\nsend_email\n</available_deferred_tools>")
		var prefix struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"input_schema"`
			} `json:"tools"`
		}
		require.NoError(t, json.Unmarshal(append(append([]byte(nil), s.Prefix()...), "]}"...), &prefix))
		require.Len(t, prefix.Tools, 3)
		for i, pt := range prefix.Tools {
			js, err := m.lists[0][i].ParamsOneOf.ToJSONSchema()
			require.NoError(t, err)
			b, err := json.Marshal(js)
			require.NoError(t, err)
			assert.JSONEq(t, string(pt.InputSchema), string(b), "schema of %s", pt.Name)
		}

		// Every call went through the dispatcher: the hook saw the target
		// of defer_execute, with eino's call ID, and the handler ran once.
		assert.Equal(t, []string{`get_weather {"city":"Paris"}`}, h.calls)
		var hooked []string
		for _, c := range seen {
			hooked = append(hooked, c.Name+" via="+c.Via+" id="+c.ID)
		}
		assert.Contains(t, hooked, "get_weather via=defer_execute id=call_2")
		assert.Equal(t, []string{"get_weather"}, s.LoadedNames())
		shelfLists = m.lists
	})

	t.Run("eino toolsearch", func(t *testing.T) {
		h := &handlers{}
		var static, dynamic []tool.BaseTool
		for _, c := range catalog {
			et := newEinoTool(t, c.name, c.desc, c.schema, h)
			if c.deferred {
				dynamic = append(dynamic, et)
			} else {
				static = append(static, et)
			}
		}
		mw, err := toolsearch.New(ctx, &toolsearch.Config{DynamicTools: dynamic})
		require.NoError(t, err)
		m := &scripted{steps: []func([]*schema.Message) (*schema.Message, error){
			func([]*schema.Message) (*schema.Message, error) {
				return toolCall("call_1", "tool_search", `{"query":"weather"}`), nil
			},
			expect("get_weather", toolCall("call_2", "get_weather", `{"city":"Paris"}`)),
			answer,
		}}
		var cfg adk.ToolsConfig
		cfg.Tools = static
		agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "assistant", Description: "answers questions",
			Instruction: "You answer questions with the tools you have.", Model: m, ToolsConfig: cfg,
			Handlers: []adk.ChatModelAgentMiddleware{mw}})
		require.NoError(t, err)

		final := run(t, ctx, agent)
		assert.Equal(t, "The weather: "+weatherText, final)
		assert.Equal(t, []string{`get_weather {"city":"Paris"}`}, h.calls)

		require.Len(t, m.lists, 3)
		assert.Equal(t, []string{"read_file", "tool_search"}, names(m.lists[0]))
		assert.Equal(t, []string{"read_file", "tool_search", "get_weather"}, names(m.lists[1]))
		assert.NotEqual(t, listJSON(t, m.lists[0]), listJSON(t, m.lists[1]), "eino's middleware changes the list after tool_search")
		assert.Equal(t, listJSON(t, m.lists[1]), listJSON(t, m.lists[2]))
		for i, l := range m.lists {
			t.Logf("eino toolsearch: model call %d tool list: %v (%d bytes)", i+1, names(l), len(listJSON(t, l)))
		}
		// Same task, same run: toolshelf's list never moved.
		require.Len(t, shelfLists, 3)
		assert.Equal(t, listJSON(t, shelfLists[0]), listJSON(t, shelfLists[2]))
	})
}

// reorder is a middleware that changes the tool list on every model call,
// as a filtering middleware does: it drops the last tool and adds one.
type reorder struct {
	*adk.BaseChatModelAgentMiddleware
	n int
}

func (r *reorder) BeforeModelRewriteState(ctx context.Context, st *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	r.n++
	st.ToolInfos = append(st.ToolInfos[:len(st.ToolInfos)-1:len(st.ToolInfos)-1], &schema.ToolInfo{Name: fmt.Sprintf("extra_%d", r.n), Desc: "added per call"})
	return ctx, st, nil
}

// TestMiddlewarePins shows that the pin is what keeps the list: a handler
// before it that rewrites the list each call changes nothing the model
// sees; without the pin the same handler does.
func TestMiddlewarePins(t *testing.T) {
	ctx := context.Background()
	for _, pinned := range []bool{true, false} {
		t.Run(fmt.Sprintf("pinned=%v", pinned), func(t *testing.T) {
			h := &handlers{}
			var seen []execute.Call
			a, err := shelfeino.New(shelf(t, h, &seen))
			require.NoError(t, err)
			m := &scripted{steps: []func([]*schema.Message) (*schema.Message, error){
				func([]*schema.Message) (*schema.Message, error) {
					return toolCall("call_1", "read_file", `{"path":"notes.txt"}`), nil
				},
				answer,
			}}
			handlers := []adk.ChatModelAgentMiddleware{&reorder{BaseChatModelAgentMiddleware: &adk.BaseChatModelAgentMiddleware{}}}
			if pinned {
				handlers = append(handlers, a.Middleware())
			}
			agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "assistant", Description: "answers questions",
				Instruction: a.Instruction(), Model: m, ToolsConfig: a.ToolsConfig(), Handlers: handlers})
			require.NoError(t, err)
			run(t, ctx, agent)
			require.Len(t, m.lists, 2)
			assert.Equal(t, []string{`read_file {"path":"notes.txt"}`}, h.calls)
			if pinned {
				assert.Equal(t, listJSON(t, m.lists[0]), listJSON(t, m.lists[1]))
				assert.Equal(t, []string{"read_file", "tool_search", "defer_execute"}, names(m.lists[1]))
			} else {
				assert.NotEqual(t, listJSON(t, m.lists[0]), listJSON(t, m.lists[1]))
			}
		})
	}
}

// einoTool is a plain eino tool for the run without toolshelf.
type einoTool struct {
	info *schema.ToolInfo
	h    *handlers
}

func newEinoTool(t *testing.T, name, desc, raw string, h *handlers) tool.InvokableTool {
	t.Helper()
	var js jsonschema.Schema
	require.NoError(t, json.Unmarshal([]byte(raw), &js))
	return &einoTool{info: &schema.ToolInfo{Name: name, Desc: desc, ParamsOneOf: schema.NewParamsOneOfByJSONSchema(&js)}, h: h}
}

func (e *einoTool) Info(context.Context) (*schema.ToolInfo, error) { return e.info, nil }

func (e *einoTool) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	return e.h.run(e.info.Name, json.RawMessage(args)), nil
}

// TestDirectDeferredCall: a deferred tool called by its own name is not one
// of eino's tools; ToolsConfig's unknown-tool handler sends it to the
// session, whose dispatcher answers it (not loaded yet: it does not run) and
// the run goes on.
func TestDirectDeferredCall(t *testing.T) {
	ctx := context.Background()
	h := &handlers{}
	var seen []execute.Call
	a, err := shelfeino.New(shelf(t, h, &seen))
	require.NoError(t, err)
	var answered string
	m := &scripted{steps: []func([]*schema.Message) (*schema.Message, error){
		func([]*schema.Message) (*schema.Message, error) {
			return toolCall("call_1", "get_weather", `{"city":"Paris"}`), nil
		},
		func(in []*schema.Message) (*schema.Message, error) {
			got, err := lastTool(in)
			answered = got
			return schema.AssistantMessage("done", nil), err
		},
	}}
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "assistant", Description: "answers questions",
		Model: m, ToolsConfig: a.ToolsConfig(), Handlers: []adk.ChatModelAgentMiddleware{a.Middleware()}})
	require.NoError(t, err)
	assert.Equal(t, "done", run(t, ctx, agent))
	assert.Empty(t, h.calls, "the handler did not run")
	assert.Contains(t, answered, `Tool "get_weather" is deferred and its schema had not been loaded`)
	t.Logf("the dispatcher's answer: %s", answered)
}

// TestSameListAnyOrder: sessions over the same tools registered in
// different orders give eino the same tool list, byte for byte — what a
// provider caches does not depend on registration order or the process.
func TestSameListAnyOrder(t *testing.T) {
	var first string
	for i := range 5 {
		var seen []execute.Call
		a, err := shelfeino.New(shelf(t, &handlers{}, &seen)) // shelf shuffles the registration order
		require.NoError(t, err)
		var infos []*schema.ToolInfo
		for _, tl := range a.Tools() {
			info, err := tl.Info(context.Background())
			require.NoError(t, err)
			infos = append(infos, info)
		}
		got := listJSON(t, infos)
		if i == 0 {
			first = got
			continue
		}
		assert.Equal(t, first, got, "session %d", i+1)
	}
}
