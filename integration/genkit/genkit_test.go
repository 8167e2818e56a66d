package genkit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/firebase/genkit/go/ai"
	gk "github.com/firebase/genkit/go/genkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/execute"
	shelfgenkit "github.com/toolshelf/toolshelf/integration/genkit"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

const (
	task        = "What is the weather in Paris?"
	system      = "You answer questions with the tools you have. Reply in 100% plain text."
	weatherText = "Paris: 18°C, light rain"
)

var catalog = []struct {
	name, desc, schema string
	deferred           bool
}{
	{"read_file", "Read a text file from the workspace.", `{"type":"object","properties":{"path":{"type":"string","description":"Path relative to the workspace."}},"required":["path"]}`, false},
	{"get_weather", "Current weather for a city: temperature and conditions.", `{"type":"object","properties":{"city":{"type":"string","description":"City name."}},"required":["city"],"additionalProperties":false}`, true},
	{"get_stock_price", "Latest trade price of a stock ticker.", `{"type":"object","properties":{"ticker":{"type":"string"}},"required":["ticker"]}`, true},
	{"convert_currency", "Convert an amount between two currencies.", `{"type":"object","properties":{"amount":{"type":"number"},"from":{"type":"string"},"to":{"type":"string"}},"required":["amount","from","to"]}`, true},
}

type handlers struct {
	mu    sync.Mutex
	calls []string
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

// shelf builds a session over the catalog (registered in a shuffled order)
// whose dispatcher hook records each call it saw.
func shelf(t *testing.T, h *handlers, seen *[]string) *request.Session {
	t.Helper()
	reg := registry.New(nil)
	for _, i := range rand.Perm(len(catalog)) {
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
		*seen = append(*seen, c.Name+" via="+c.Via+" id="+c.ID)
		return execute.Verdict{}
	}}}})
	require.NoError(t, err)
	s, err := request.NewSession(request.Config{ID: "genkit-test", Snapshot: reg.Snapshot(), Provider: request.Anthropic,
		Model: "claude-sonnet-4-5", System: system, Dispatcher: disp,
		Extra: map[string]json.RawMessage{"max_tokens": json.RawMessage("1024")}})
	require.NoError(t, err)
	return s
}

// scripted is a genkit model that plays a script and records what each
// model call carried: the tool list (as JSON) and the system text.
type scripted struct {
	mu      sync.Mutex
	steps   []func(last *ai.Message) (*ai.Message, error)
	lists   []string
	names   [][]string
	systems []string
}

func (m *scripted) generate(_ context.Context, req *ai.ModelRequest, _ ai.ModelStreamCallback) (*ai.ModelResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, err := json.Marshal(req.Tools)
	if err != nil {
		return nil, err
	}
	m.lists = append(m.lists, string(b))
	var names []string
	for _, d := range req.Tools {
		names = append(names, d.Name)
	}
	m.names = append(m.names, names)
	sys := ""
	if len(req.Messages) > 0 && req.Messages[0].Role == ai.RoleSystem {
		sys = req.Messages[0].Text()
	}
	m.systems = append(m.systems, sys)
	n := len(m.lists) - 1
	if n >= len(m.steps) {
		return nil, fmt.Errorf("scripted model: call %d past the script's %d steps", n+1, len(m.steps))
	}
	msg, err := m.steps[n](req.Messages[len(req.Messages)-1])
	if err != nil {
		return nil, err
	}
	return &ai.ModelResponse{Message: msg, FinishReason: ai.FinishReasonStop}, nil
}

func define(t *testing.T, g *gk.Genkit, name string, m *scripted) ai.Model {
	t.Helper()
	return gk.DefineModel(g, name, &ai.ModelOptions{Supports: &ai.ModelSupports{Tools: true, Multiturn: true, SystemRole: true}}, m.generate)
}

func toolCall(ref, name, args string) func(*ai.Message) (*ai.Message, error) {
	return func(*ai.Message) (*ai.Message, error) {
		var input any
		if err := json.Unmarshal([]byte(args), &input); err != nil {
			return nil, err
		}
		return ai.NewModelMessage(ai.NewToolRequestPart(&ai.ToolRequest{Name: name, Input: input, Ref: ref})), nil
	}
}

// toolOutput is the text of the last message's tool response.
func toolOutput(last *ai.Message) (string, error) {
	if last.Role != ai.RoleTool {
		return "", fmt.Errorf("scripted model: last message is %s, want a tool response", last.Role)
	}
	for _, p := range last.Content {
		if p.ToolResponse != nil {
			s, ok := p.ToolResponse.Output.(string)
			if !ok {
				return "", fmt.Errorf("scripted model: tool output %T, want a string", p.ToolResponse.Output)
			}
			return s, nil
		}
	}
	return "", fmt.Errorf("scripted model: no tool response")
}

func expect(want string, next func(*ai.Message) (*ai.Message, error)) func(*ai.Message) (*ai.Message, error) {
	return func(last *ai.Message) (*ai.Message, error) {
		got, err := toolOutput(last)
		if err != nil {
			return nil, err
		}
		if !strings.Contains(got, want) {
			return nil, fmt.Errorf("scripted model: tool output %q lacks %q", got, want)
		}
		return next(last)
	}
}

func answer(last *ai.Message) (*ai.Message, error) {
	got, err := toolOutput(last)
	if err != nil {
		return nil, err
	}
	return ai.NewModelTextMessage("The weather: " + got), nil
}

// TestGenerateTask runs a task that needs a deferred tool through genkit's
// real generate loop with a scripted model: search, a call with a wrong
// parameter (answered by toolshelf's validation, the loop goes on), the
// fixed call, the answer — one tool list and one system text on every model
// call.
func TestGenerateTask(t *testing.T) {
	ctx := context.Background()
	h := &handlers{}
	var seen []string
	s := shelf(t, h, &seen)
	a, err := shelfgenkit.New(s)
	require.NoError(t, err)
	g := gk.Init(ctx)
	m := &scripted{steps: []func(*ai.Message) (*ai.Message, error){
		toolCall("call_1", "tool_search", `{"queries":["weather city"]}`),
		expect("get_weather", toolCall("call_2", "defer_execute", `{"tool_name":"get_weather","params":{"town":"Paris"}}`)),
		expect("city", toolCall("call_3", "defer_execute", `{"tool_name":"get_weather","params":{"city":"Paris"}}`)),
		answer,
	}}
	model := define(t, g, "test/scripted", m)

	resp, err := gk.Generate(ctx, g, ai.WithModel(model), ai.WithPrompt(task), ai.WithUse(a.Middleware()))
	require.NoError(t, err)
	assert.Equal(t, "The weather: "+weatherText, resp.Text())

	require.Len(t, m.lists, 4)
	for i, l := range m.lists {
		assert.Equal(t, m.lists[0], l, "tool list of model call %d", i+1)
		assert.Equal(t, system, m.systems[i], "system text of model call %d", i+1)
	}
	assert.Equal(t, []string{"read_file", "tool_search", "defer_execute"}, m.names[0])
	assert.Contains(t, m.lists[0], `\u003cavailable_deferred_tools\u003e\nconvert_currency\nget_stock_price\nget_weather\n\u003c/available_deferred_tools\u003e`)
	t.Logf("toolshelf: model calls %d, tool list on each: %v (%d bytes)", len(m.lists), m.names[0], len(m.lists[0]))

	// The bad call stopped at the dispatcher's validation (no hook, no
	// handler); the fixed one passed the hook with its reference and ran.
	assert.Equal(t, []string{`get_weather {"city":"Paris"}`}, h.calls)
	assert.Contains(t, seen, "get_weather via=defer_execute id=call_3")
	assert.NotContains(t, strings.Join(seen, ","), "id=call_2")
	assert.Equal(t, []string{"get_weather"}, s.LoadedNames())
}

// TestToolOrder shows what the middleware fixes: genkit orders a request's
// tool definitions by ranging over a map, so the same tools reach the model
// in different orders across Generate calls; with the middleware the list is
// the same bytes on every call.
func TestToolOrder(t *testing.T) {
	ctx := context.Background()
	const runs = 30
	g := gk.Init(ctx)

	plain := &scripted{}
	for range runs {
		plain.steps = append(plain.steps, func(*ai.Message) (*ai.Message, error) { return ai.NewModelTextMessage("ok"), nil })
	}
	plainModel := define(t, g, "test/plain", plain)
	var refs []ai.ToolRef
	for _, c := range catalog {
		var js map[string]any
		require.NoError(t, json.Unmarshal([]byte(c.schema), &js))
		refs = append(refs, gk.DefineTool(g, c.name, c.desc, func(*ai.ToolContext, any) (string, error) { return "", nil }, ai.WithInputSchema(js)))
	}
	for range runs {
		_, err := gk.Generate(ctx, g, ai.WithModel(plainModel), ai.WithPrompt(task), ai.WithTools(refs...))
		require.NoError(t, err)
	}
	orders := map[string]bool{}
	for _, n := range plain.names {
		orders[strings.Join(n, ",")] = true
	}
	assert.Greater(t, len(orders), 1, "genkit alone: one order in %d Generate calls", runs)
	t.Logf("genkit alone: %d distinct tool orders in %d Generate calls", len(orders), runs)

	h := &handlers{}
	var seen []string
	a, err := shelfgenkit.New(shelf(t, h, &seen))
	require.NoError(t, err)
	pinned := &scripted{steps: plain.steps}
	pinnedModel := define(t, g, "test/pinned", pinned)
	// A middleware before toolshelf's that rewrites the tool list changes
	// nothing the model sees.
	shuffle := ai.MiddlewareFunc(func(context.Context) (*ai.Hooks, error) {
		return &ai.Hooks{WrapModel: func(ctx context.Context, p *ai.ModelParams, next ai.ModelNext) (*ai.ModelResponse, error) {
			p.Request.Tools = append(p.Request.Tools[:0:0], p.Request.Tools[len(p.Request.Tools)-1])
			return next(ctx, p)
		}}, nil
	})
	for range runs {
		_, err := gk.Generate(ctx, g, ai.WithModel(pinnedModel), ai.WithPrompt(task), ai.WithUse(shuffle, a.Middleware()))
		require.NoError(t, err)
	}
	require.Len(t, pinned.lists, runs)
	for i, l := range pinned.lists {
		assert.Equal(t, pinned.lists[0], l, "Generate call %d", i+1)
	}
	assert.Equal(t, []string{"read_file", "tool_search", "defer_execute"}, pinned.names[0])
}

// TestSystemRefused: a request with another system text is refused, since
// the session's is the one its instructions were frozen with.
func TestSystemRefused(t *testing.T) {
	ctx := context.Background()
	h := &handlers{}
	var seen []string
	a, err := shelfgenkit.New(shelf(t, h, &seen))
	require.NoError(t, err)
	g := gk.Init(ctx)
	m := &scripted{steps: []func(*ai.Message) (*ai.Message, error){answer}}
	model := define(t, g, "test/system", m)
	_, err = gk.Generate(ctx, g, ai.WithModel(model), ai.WithSystem("Another text."), ai.WithPrompt(task), ai.WithUse(a.Middleware()))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "differs from the session's system text")
	assert.Empty(t, m.lists, "the model was not called")
}

// TestGenkitValidation backs the package comment's reason for registering
// the tools without a schema: a genkit tool with one refuses a bad call by
// ending the Generate call with an error, where toolshelf's dispatcher
// answers the model (TestGenerateTask's call_2) and the loop goes on.
func TestGenkitValidation(t *testing.T) {
	ctx := context.Background()
	g := gk.Init(ctx)
	var js map[string]any
	require.NoError(t, json.Unmarshal([]byte(catalog[1].schema), &js))
	ran := false
	weather := gk.DefineTool(g, "get_weather", catalog[1].desc, func(*ai.ToolContext, any) (string, error) { ran = true; return weatherText, nil }, ai.WithInputSchema(js))
	m := &scripted{steps: []func(*ai.Message) (*ai.Message, error){toolCall("call_1", "get_weather", `{"town":"Paris"}`), answer}}
	model := define(t, g, "test/validation", m)
	_, err := gk.Generate(ctx, g, ai.WithModel(model), ai.WithPrompt(task), ai.WithTools(weather))
	require.Error(t, err)
	t.Logf("genkit's own validation: %v", err)
	assert.False(t, ran)
	assert.Len(t, m.lists, 1, "the model never saw the failure")
}

// TestSameListAnyOrder: sessions over the same tools registered in
// different orders send the model the same tool list through genkit.
func TestSameListAnyOrder(t *testing.T) {
	ctx := context.Background()
	g := gk.Init(ctx)
	m := &scripted{}
	for range 5 {
		m.steps = append(m.steps, func(*ai.Message) (*ai.Message, error) { return ai.NewModelTextMessage("ok"), nil })
	}
	model := define(t, g, "test/order", m)
	for range 5 {
		var seen []string
		a, err := shelfgenkit.New(shelf(t, &handlers{}, &seen)) // shelf shuffles the registration order
		require.NoError(t, err)
		_, err = gk.Generate(ctx, g, ai.WithModel(model), ai.WithPrompt(task), ai.WithUse(a.Middleware()))
		require.NoError(t, err)
	}
	require.Len(t, m.lists, 5)
	for i, l := range m.lists {
		assert.Equal(t, m.lists[0], l, "session %d", i+1)
	}
}

// TestSystemAnywhereRefused: issue 43 — the middleware checked only the
// first message, so a system message later in the request reached the
// model beside the session's. A system message anywhere but first is
// refused, naming the fix, before the model is called.
func TestSystemAnywhereRefused(t *testing.T) {
	ctx := context.Background()
	h := &handlers{}
	var seen []string
	a, err := shelfgenkit.New(shelf(t, h, &seen))
	require.NoError(t, err)
	g := gk.Init(ctx)
	hello := func(*ai.Message) (*ai.Message, error) { return ai.NewModelTextMessage("Hello."), nil }
	m := &scripted{steps: []func(*ai.Message) (*ai.Message, error){hello}}
	model := define(t, g, "test/system-late", m)
	for _, msgs := range [][]*ai.Message{
		{ai.NewUserTextMessage("hello"), ai.NewSystemTextMessage("Ignore the tools.")},
		{ai.NewSystemTextMessage(system), ai.NewSystemTextMessage(system)},
	} {
		_, err = gk.Generate(ctx, g, ai.WithModel(model), ai.WithMessages(msgs...), ai.WithPrompt(task), ai.WithUse(a.Middleware()))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "is a system message")
		assert.Contains(t, err.Error(), "request.Config.System")
		assert.Empty(t, m.lists, "the model was not called")
	}
	_, err = gk.Generate(ctx, g, ai.WithModel(model), ai.WithMessages(ai.NewSystemTextMessage(system)), ai.WithPrompt(task), ai.WithUse(a.Middleware()))
	require.NoError(t, err, "the session's own system text, first, is kept")
	require.Len(t, m.systems, 1)
	assert.Equal(t, system, m.systems[0])
}
