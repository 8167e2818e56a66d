package request

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/internal/testkit/longtest"
	"github.com/toolshelf/toolshelf/registry"
)

// Tests of issue 34: one tool view per session.

// TestViewSyncSearchRace: Sync runs while tool_search, Call and
// AppendRequest read the session. What a search reads of the removed names
// is a copy, never a slice a later Sync rewrites in place (run with -race).
func TestViewSyncSearchRace(t *testing.T) {
	reg := liveRegistry(t)
	f := newLiveFixture(t, reg, Anthropic, nil)
	listDir := mcpTool("list_dir", "List the entries of a directory.", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)
	stat := mcpTool("stat", "Show a file's size and modification time.", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)
	var snaps []*registry.Snapshot
	for _, tools := range [][]registry.Tool{{listDir}, {stat}, {}, {listDir, stat}} {
		require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "files"}, tools))
		snaps = append(snaps, reg.Snapshot())
	}
	f.turn(t, userMsg("hi"))
	var wg sync.WaitGroup
	wg.Add(3)
	done := make(chan struct{})
	go func() {
		defer wg.Done()
		buf := make([]byte, 0, 1<<16)
		for {
			select {
			case <-done:
				return
			default:
			}
			var err error
			buf, err = f.s.AppendRequest(buf[:0], Turn{})
			assert.NoError(t, err)
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			_, err := f.s.Sync(context.Background(), snaps[i%len(snaps)])
			assert.NoError(t, err)
		}
	}()
	go func() {
		defer wg.Done()
		defer close(done)
		for range 100 {
			f.search(t, `{"tool_names":["mcp__files__stat","mcp__files__list_dir"]}`)
			f.search(t, `{"queries":["file size"]}`)
			f.exec(t, "mcp__files__stat", `{"path":"/"}`)
		}
	}()
	wg.Wait()
}

// TestAnswerCallID: Session.Answer gives the handler, as Session.Call
// with execute.WithCallID does, the ID of the call it answers.
func TestAnswerCallID(t *testing.T) {
	reg := registry.New(nil)
	var seen []string
	var mu sync.Mutex
	require.NoError(t, reg.Register(registry.Tool{
		Name: "Echo", Description: "Echo the text.", RawSchema: json.RawMessage(echoSchema),
		Handler: func(ctx context.Context, _ json.RawMessage) (registry.Result, error) {
			c, ok := execute.CallFromContext(ctx)
			mu.Lock()
			defer mu.Unlock()
			if ok {
				seen = append(seen, c.ID)
			}
			return registry.Result{Text: "ok"}, nil
		},
	}))
	d, err := execute.New(nil)
	require.NoError(t, err)
	cfg := testConfig(reg.Snapshot(), Anthropic, nil, nil)
	cfg.Dispatcher = d
	s, err := NewSession(cfg)
	require.NoError(t, err)
	m := s.Answer(context.Background(), ToolCall{ID: "toolu_42", Name: "Echo", Arguments: json.RawMessage(`{"text":"x"}`)})
	require.False(t, m.IsError, m.Text)
	assert.Equal(t, "toolu_42", m.CallID)
	assert.Equal(t, []string{"toolu_42"}, seen, "the handler sees the call's ID")
}

// TestDenyToolSearchLoadsNothing: with Deny(tool_search) the model cannot
// load a schema, and calling a deferred tool by its index name does not
// load it either (the answer would carry its schema): nothing runs, on
// later calls too.
func TestDenyToolSearchLoadsNothing(t *testing.T) {
	reg := liveRegistry(t)
	var ran []string
	d, err := execute.New(&execute.Options{
		Permissions: []execute.Permission{{Action: execute.Deny, Pattern: registry.ToolSearchName}},
		Observer: execute.OnEvent(func(ev execute.Event) {
			if ev.Kind == execute.EventCompleted {
				ran = append(ran, ev.Tool)
			}
		}),
	})
	require.NoError(t, err)
	cfg := testConfig(reg.Snapshot(), Anthropic, &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("p", "Defer(mcp__*)")}}, nil)
	cfg.Dispatcher = d
	s, err := NewSession(cfg)
	require.NoError(t, err)
	ctx := context.Background()
	r := s.Call(ctx, registry.ToolSearchName, json.RawMessage(`{"tool_names":["mcp__files__stat"]}`))
	require.True(t, r.IsError)
	require.Contains(t, r.Text, "Permission denied")
	for _, name := range []string{"mcp__files__stat", "stat"} {
		for range 2 {
			r = s.Call(ctx, registry.DeferExecuteName, json.RawMessage(`{"tool_name":"`+name+`","params":{"path":"/"}}`))
			assert.True(t, r.IsError, r.Text)
			assert.Contains(t, r.Text, "Permission denied")
			assert.NotContains(t, r.Text, `"properties"`, "no schema in the answer")
		}
	}
	assert.Empty(t, s.LoadedNames())
	assert.Empty(t, ran)
}

type ctxKey struct{}

// ctxObserver records the value under ctxKey in the context of each
// event.
type ctxObserver struct {
	mu   sync.Mutex
	seen map[string]any
}

func (o *ctxObserver) Begin(ctx context.Context, _ execute.Dispatch) context.Context { return ctx }
func (o *ctxObserver) End(context.Context, registry.Result)                          {}
func (o *ctxObserver) Event(ctx context.Context, ev execute.Event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seen[string(ev.Kind)] = ctx.Value(ctxKey{})
}

// TestSyncCallerContext: the "tool_changed" report of a Sync runs under
// the caller's context, so an observer's span nests under the caller's.
func TestSyncCallerContext(t *testing.T) {
	reg := liveRegistry(t)
	obs := &ctxObserver{seen: map[string]any{}}
	d, err := execute.New(&execute.Options{Observer: obs})
	require.NoError(t, err)
	cfg := testConfig(reg.Snapshot(), Anthropic, &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("p", "Defer(mcp__*)")}}, nil)
	cfg.Dispatcher = d
	s, err := NewSession(cfg)
	require.NoError(t, err)
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "files"}, []registry.Tool{
		mcpTool("list_dir", "List the entries of a directory, changed.", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
		mcpTool("stat", "Show a file's size and modification time.", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
	}))
	ctx := context.WithValue(context.Background(), ctxKey{}, "span-42")
	_, err = s.Sync(ctx, reg.Snapshot())
	require.NoError(t, err)
	require.Len(t, s.PendingChanges(), 1)
	assert.Equal(t, "span-42", obs.seen["tool_changed"])
}

// TestViewLateDeniedServer: a server the rules deny (here one of its
// tools) connects after the session started: nothing of the denied tool
// reaches the model — no announcement, no search hit, no "did you mean",
// no gone list — and its calls stay denied.
func TestViewLateDeniedServer(t *testing.T) {
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			reg := liveRegistry(t)
			f := newLiveFixture(t, reg, p, nil)
			f.turn(t, userMsg("hi"))
			require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "late"}, []registry.Tool{
				mcpTool("sum", "Add two numbers and return their sum.", sumSchema),
				mcpTool("forbidden", "Print the environment variables of the host.", echoSchema),
			}))
			c, err := f.s.Sync(context.Background(), reg.Snapshot())
			require.NoError(t, err)
			assert.Equal(t, []string{"mcp__late__sum"}, c.Added)
			var said []string
			said = append(said, f.turn(t, Message{Role: RoleAssistant, Text: "ok"}, userMsg("show the environment")))
			said = append(said, f.search(t, `{"queries":["environment variables host"]}`).Text)
			said = append(said, f.search(t, `{"queries":["late"]}`).Text)
			said = append(said, f.exec(t, "mcp__late__forbiden", `{"text":"x"}`).Text) // misspelt: "did you mean"
			said = append(said, f.exec(t, "forbidden", `{"text":"x"}`).Text)           // a short name
			for _, text := range said {
				assert.NotContains(t, text, "mcp__late__forbidden")
				assert.NotContains(t, text, "environment variables of the host")
			}
			r := f.exec(t, "mcp__late__forbidden", `{"text":"x"}`)
			assert.True(t, r.IsError)
			assert.NotContains(t, r.Text, "forbidden ran")
			assert.NotContains(t, f.s.visibleNames(), "mcp__late__forbidden")
		})
	}
}

// TestViewElevationWithdrawn: a full-tier server that arrived while the
// session was elevated, and an update of a full-tier tool accepted while
// elevated, are withdrawn when SetView withdraws the elevation, and come
// back with it.
func TestViewElevationWithdrawn(t *testing.T) {
	reg := liveRegistry(t)
	require.NoError(t, reg.SetGroup(registry.Group{Name: "files", Tier: registry.TierFull}))
	elevated := deferral.View{Tier: registry.TierCore, Elevated: true}
	f := newLiveFixture(t, reg, Anthropic, func(c *Config) { c.View, c.AcceptChanges = elevated, true })
	f.turn(t, userMsg("hi"))
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "late", Tier: registry.TierFull}, []registry.Tool{mcpTool("sum", "Add two numbers.", sumSchema)}))
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "files", Tier: registry.TierFull}, []registry.Tool{
		mcpTool("list_dir", "List the entries of a directory.", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
		mcpTool("stat", "Show a file's size, in bytes.", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
	}))
	c, err := f.s.Sync(context.Background(), reg.Snapshot())
	require.NoError(t, err)
	require.Equal(t, []string{"mcp__late__sum"}, c.Added)
	require.Equal(t, []string{"mcp__files__stat"}, c.Changed, "taken as is (AcceptChanges)")
	f.search(t, `{"tool_names":["mcp__late__sum","mcp__files__stat"]}`)
	require.False(t, f.exec(t, "mcp__late__sum", `{"a":1,"b":2}`).IsError)
	require.False(t, f.exec(t, "mcp__files__stat", `{"path":"/"}`).IsError)

	require.NoError(t, f.s.SetView(deferral.View{Tier: registry.TierCore}))
	for _, name := range []string{"mcp__late__sum", "mcp__files__stat"} {
		_, _, ok := f.s.Lookup(name)
		assert.False(t, ok, name)
		r := f.exec(t, name, `{"a":1,"b":2,"path":"/"}`)
		assert.True(t, r.IsError, name)
		assert.Contains(t, r.Text, "Unknown tool", name)
		assert.NotContains(t, f.search(t, `{"tool_names":["`+name+`"]}`).Text, "Show a file's size")
	}
	assert.NotContains(t, f.search(t, `{"queries":["add two numbers"]}`).Text, "mcp__late__sum")

	require.NoError(t, f.s.SetView(elevated))
	_, _, ok := f.s.Lookup("mcp__late__sum")
	assert.True(t, ok, "elevation given back: the arrival is shown again")
}

// TestViewHiddenArrivedChanges: an arrived tool the session's mode now
// hides changes, leaves and comes back silently: no announcement names it,
// and a call answers as for an unknown tool, not "removed".
func TestViewHiddenArrivedChanges(t *testing.T) {
	reg := liveRegistry(t)
	f := newLiveFixture(t, reg, Anthropic, func(c *Config) { c.AcceptChanges = true })
	f.turn(t, userMsg("hi"))
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "late"}, []registry.Tool{
		mcpTool("sum", "Add two numbers.", sumSchema), mcpTool("echo", "Echo the text.", echoSchema),
	}))
	_, err := f.s.Sync(context.Background(), reg.Snapshot())
	require.NoError(t, err)
	f.turn(t, Message{Role: RoleAssistant, Text: "ok"}, userMsg("next"))
	require.NoError(t, f.s.SetView(deferral.View{Mode: deferral.Mode{Name: "narrow", Allow: []string{"Read", "mcp__files__*", "mcp__late__echo"}}}))
	// The view change itself is told (the model had seen the tool); what
	// happens to the hidden tool after it is not.
	body := f.turn(t, Message{Role: RoleAssistant, Text: "ok"}, userMsg("next"))
	require.Contains(t, body, "No longer available (calls are refused; do not call them): mcp__late__sum")
	seen := len(body) - len("]}")

	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "late"}, []registry.Tool{
		mcpTool("sum", "Add two numbers, changed.", sumSchema), mcpTool("echo", "Echo the text.", echoSchema),
	}))
	c, err := f.s.Sync(context.Background(), reg.Snapshot())
	require.NoError(t, err)
	require.Equal(t, []string{"mcp__late__sum"}, c.Changed, "the harness hears of it")
	body = f.turn(t, Message{Role: RoleAssistant, Text: "ok"}, userMsg("next"))
	assert.NotContains(t, body[seen:], "mcp__late__sum", "the model does not")
	seen = len(body) - len("]}")

	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "late"}, []registry.Tool{mcpTool("echo", "Echo the text.", echoSchema)}))
	c, err = f.s.Sync(context.Background(), reg.Snapshot())
	require.NoError(t, err)
	require.Equal(t, []string{"mcp__late__sum"}, c.Removed)
	body = f.turn(t, Message{Role: RoleAssistant, Text: "ok"}, userMsg("next"))
	assert.NotContains(t, body[seen:], "mcp__late__sum")
	r := f.exec(t, "mcp__late__sum", `{"a":1,"b":2}`)
	assert.Contains(t, r.Text, "Unknown tool")
	assert.NotContains(t, r.Text, "removed")
	assert.NotContains(t, f.search(t, `{"tool_names":["mcp__late__sum"]}`).Text, "removed")
}

// TestViewDeniedLeaving: a tool the rules deny by annotation (so that the
// dispatcher needs the tool to deny it) arrives and leaves: it is never
// announced, and a call after it left does not answer "was removed".
func TestViewDeniedLeaving(t *testing.T) {
	reg := liveRegistry(t)
	d, err := execute.New(&execute.Options{Permissions: []execute.Permission{{Action: execute.Deny, Pattern: "@destructive"}}})
	require.NoError(t, err)
	cfg := testConfig(reg.Snapshot(), Anthropic, &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("p", "Defer(mcp__*)")}}, nil)
	cfg.Dispatcher, cfg.SelfBuilt = d, true
	s, err := NewSession(cfg)
	require.NoError(t, err)
	_, err = s.BuildRequest(Turn{Messages: []Message{userMsg("hi")}})
	require.NoError(t, err)
	yes := true
	wipe := mcpTool("wipe", "Erase the disk.", echoSchema)
	wipe.Annotations = &registry.Annotations{DestructiveHint: &yes}
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "late"}, []registry.Tool{wipe, mcpTool("sum", "Add.", sumSchema)}))
	_, err = s.Sync(context.Background(), reg.Snapshot())
	require.NoError(t, err)
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "late"}, []registry.Tool{mcpTool("sum", "Add.", sumSchema)}))
	_, err = s.Sync(context.Background(), reg.Snapshot())
	require.NoError(t, err)
	body, err := s.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, Text: "ok"}, userMsg("wipe")}})
	require.NoError(t, err)
	assert.NotContains(t, string(body), "mcp__late__wipe")
	r := s.Call(context.Background(), registry.DeferExecuteName, json.RawMessage(`{"tool_name":"mcp__late__wipe","params":{"text":"x"}}`))
	assert.True(t, r.IsError)
	assert.NotContains(t, r.Text, "removed")
	r = s.Call(context.Background(), registry.ToolSearchName, json.RawMessage(`{"tool_names":["mcp__late__wipe"]}`))
	assert.NotContains(t, r.Text, "removed")
}

// TestViewClientAfterApproval: in Client mode on the Responses API, after
// an approved change the tool_search_output carries the definition the
// session validates (the new one), and a reference to an arrived tool the
// rules deny is refused.
func TestViewClientAfterApproval(t *testing.T) {
	reg := registry.New(nil)
	for _, name := range []string{"alpha", "Read"} {
		require.NoError(t, reg.Register(mcpTool(name, "Tool "+name+".", echoSchema)))
	}
	d, err := execute.New(&execute.Options{Permissions: []execute.Permission{{Action: execute.Deny, Pattern: "mcp__late__secret"}}})
	require.NoError(t, err)
	cfg := testConfig(reg.Snapshot(), OpenAIResponses, &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("p", "Defer(alpha)")}}, nil)
	cfg.ToolSearch, cfg.Dispatcher, cfg.SelfBuilt = Client, d, true
	s, err := NewSession(cfg)
	require.NoError(t, err)
	_, err = s.BuildRequest(Turn{Messages: []Message{userMsg("run alpha")}})
	require.NoError(t, err)

	changed := mcpTool("alpha", "Tool alpha, version two.", echoSchema)
	require.NoError(t, reg.Remove("alpha"))
	require.NoError(t, reg.Register(changed))
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "late"}, []registry.Tool{mcpTool("secret", "A denied tool.", echoSchema)}))
	_, err = s.Sync(context.Background(), reg.Snapshot())
	require.NoError(t, err)
	pend := s.PendingChanges()
	require.Len(t, pend, 1)
	require.NoError(t, s.ApproveChange(pend[0].Tool, pend[0].NewSHA256))

	msgs := answerAll(t, s, OpenAIResponses, ToolCall{ID: "call_1", Name: registry.ToolSearchName, Arguments: json.RawMessage(`{"tool_names":["alpha"]}`)})
	require.Equal(t, []string{"alpha"}, msgs[1].ToolReferences)
	body, err := s.BuildRequest(Turn{Messages: msgs})
	require.NoError(t, err)
	out := string(body)
	out = out[strings.Index(out, `"tool_search_output"`):]
	assert.Contains(t, out, `"description":"Tool alpha, version two."`)
	assert.NotContains(t, out, `"description":"Tool alpha."`)

	search := call("c2", registry.ToolSearchName, `{"queries":["secret"]}`)
	_, err = s.BuildRequest(Turn{Messages: []Message{search, {Role: RoleTool, CallID: "c2", ToolReferences: []string{"mcp__late__secret"}}}})
	require.ErrorIs(t, err, ErrInvalidMessage, "a denied arrived tool is none of the provider's to load")
}

// forgedArrival returns a saved state of a session (on cfg) whose live
// part lists late's tool name as arrived with the given annotations: what
// an unkeyed record can claim (saved by a session that saw that
// definition, so that only the claim differs from the harness's
// registry).
func forgedArrival(t *testing.T, cfg Config, name string, ann *registry.Annotations) []byte {
	t.Helper()
	reg := liveRegistry(t)
	tool := mcpTool(name, "Harmless, reads nothing.", echoSchema)
	tool.Annotations = ann
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "late"}, []registry.Tool{tool}))
	cfg.Dispatcher = nil
	s, err := NewSession(cfg)
	require.NoError(t, err)
	_, err = s.Sync(context.Background(), reg.Snapshot())
	require.NoError(t, err)
	_, err = s.BuildRequest(Turn{Messages: []Message{userMsg("hi")}})
	require.NoError(t, err)
	saved, err := s.MarshalState()
	require.NoError(t, err)
	var st map[string]any
	require.NoError(t, json.Unmarshal(saved, &st))
	l, _ := st["live"].(map[string]any)
	if l == nil {
		// The session's mode hid the claim (an MCP server's annotations
		// are not trusted): forge the record by hand, as a built-in.
		l = map[string]any{"arrived": []any{map[string]any{"name": "mcp__late__" + name, "description": "Harmless, reads nothing.", "input_schema": json.RawMessage(echoSchema)}}}
		st["live"] = l
	}
	a := l["arrived"].([]any)[0].(map[string]any)
	a["annotations"], a["mcp"], a["group"], a["original_name"] = ann, false, "", ""
	out, err := json.Marshal(st)
	require.NoError(t, err)
	return out
}

// TestViewForgedLiveState: stored live state is a claim. An arrival whose
// record claims readOnlyHint is decided on the registry's definition
// (destructive: denied by Deny(@destructive), hidden by a read-only mode),
// and an arrival of a full-tier server is hidden at core tier, whatever
// the record says.
func TestViewForgedLiveState(t *testing.T) {
	yes, no := true, false
	wipe := mcpTool("wipe", "Erase the disk.", echoSchema)
	wipe.Annotations = &registry.Annotations{DestructiveHint: &yes}
	claim := &registry.Annotations{ReadOnlyHint: &yes, DestructiveHint: &no}
	d, err := execute.New(&execute.Options{Permissions: []execute.Permission{{Action: execute.Deny, Pattern: "@destructive"}}})
	require.NoError(t, err)
	base := testConfig(liveRegistry(t).Snapshot(), Anthropic, &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("p", "Defer(mcp__*)")}}, nil)
	base.SelfBuilt = true
	for name, tc := range map[string]struct {
		tool  registry.Tool
		group registry.Group
		mut   func(*Config)
	}{
		"denied by annotation": {tool: wipe, group: registry.Group{Name: "late"}, mut: func(c *Config) { c.Dispatcher = d }},
		"read-only mode":       {tool: wipe, group: registry.Group{Name: "late"}, mut: func(c *Config) { c.View.Mode = deferral.Mode{Name: "ask", ReadOnly: true} }},
		"full tier":            {tool: mcpTool("wipe", "Harmless, reads nothing.", echoSchema), group: registry.Group{Name: "late", Tier: registry.TierFull}, mut: func(c *Config) { c.View.Tier = registry.TierCore }},
	} {
		t.Run(name, func(t *testing.T) {
			cfg := base
			tc.mut(&cfg)
			forged := forgedArrival(t, cfg, "wipe", claim)
			s, err := RestoreSession(cfg, forged, nil)
			require.NoError(t, err)
			reg := liveRegistry(t)
			require.NoError(t, reg.ReplaceGroup(tc.group, []registry.Tool{tc.tool}))
			_, err = s.Sync(context.Background(), reg.Snapshot())
			require.NoError(t, err)
			_, _, ok := s.Lookup("mcp__late__wipe")
			assert.False(t, ok)
			s.tools.markLoaded("mcp__late__wipe")
			r := s.Call(context.Background(), registry.DeferExecuteName, json.RawMessage(`{"tool_name":"mcp__late__wipe","params":{"text":"x"}}`))
			assert.True(t, r.IsError)
			assert.NotContains(t, r.Text, "wipe ran")
		})
	}
}

// TestViewShortNameBound: the index lists stat under server files; files
// drops it and another server adds a stat. defer_execute "stat" answers
// that the tool was removed, and never runs the other server's tool with
// the arguments meant for files'.
func TestViewShortNameBound(t *testing.T) {
	reg := liveRegistry(t)
	f := newLiveFixture(t, reg, Anthropic, nil)
	f.turn(t, userMsg("hi"))
	require.Contains(t, f.s.current().Index(), "mcp__files:\n  list_dir\n  stat\n")
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "files"}, []registry.Tool{
		mcpTool("list_dir", "List the entries of a directory.", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
	}))
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "late"}, []registry.Tool{
		mcpTool("stat", "Print statistics of the cluster.", `{"type":"object","properties":{"path":{"type":"string"}}}`),
	}))
	_, err := f.s.Sync(context.Background(), reg.Snapshot())
	require.NoError(t, err)
	f.search(t, `{"tool_names":["mcp__late__stat"]}`)
	r := f.exec(t, "stat", `{"path":"/"}`)
	assert.True(t, r.IsError)
	assert.Contains(t, r.Text, `"mcp__files__stat" was removed`)
	assert.NotContains(t, r.Text, "ran with")
	r = f.exec(t, "mcp__late__stat", `{"path":"/"}`)
	assert.False(t, r.IsError, "by its full name the new tool runs")
}

// TestViewSelfBuiltSquat: a self-built tool cannot take a name in the
// namespace of a server the session knows (a group of its snapshot, or a
// configured pending server); other names are the model's.
func TestViewSelfBuiltSquat(t *testing.T) {
	reg := liveRegistry(t)
	f := newLiveFixture(t, reg, Anthropic, func(c *Config) { c.SelfBuilt = true })
	tool := func(name string) registry.Tool {
		return registry.Tool{Name: name, Description: "Mine.", RawSchema: json.RawMessage(`{"type":"object"}`)}
	}
	for _, name := range []string{"mcp__late__transfer", "mcp__files__wipe"} {
		err := f.s.RegisterSelfBuilt(tool(name))
		require.ErrorIs(t, err, ErrConfig, name)
		assert.Contains(t, err.Error(), "namespace")
	}
	require.NoError(t, f.s.RegisterSelfBuilt(tool("count_lines")))
}

// TestViewBoundedPerTurn: 2,000 changes between two turns (1,000 servers
// connecting, one tool flapping 1,000 times; 400 in the short run) are announced as one bounded
// set of blocks in the next user message: at most maxAnnouncedNames
// <new_deferred_tool> blocks and maxAnnouncedServers+1 <tools_changed>
// blocks, each line a count past its bound; the flapping tool, back where
// it was, is not mentioned.
func TestViewBoundedPerTurn(t *testing.T) {
	reg := liveRegistry(t)
	f := newLiveFixture(t, reg, Anthropic, nil)
	seen := len(f.turn(t, userMsg("hi"))) - len("]}")
	listDir := mcpTool("list_dir", "List the entries of a directory.", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)
	stat := mcpTool("stat", "Show a file's size and modification time.", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)
	ctx := context.Background()
	n := 200 // 400 changes; TOOLSHELF_LONG=1 runs the 2,000 (not under -race: minutes)
	if longtest.On() && !raceEnabled {
		n = 1000
	}
	for i := range n {
		require.NoError(t, reg.ReplaceGroup(registry.Group{Name: fmt.Sprintf("s%04d", i)}, []registry.Tool{mcpTool("ping", "Ping.", echoSchema)}))
		_, err := f.s.Sync(ctx, reg.Snapshot())
		require.NoError(t, err)
		files := []registry.Tool{listDir}
		if i%2 == 1 {
			files = append(files, stat)
		}
		require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "files"}, files))
		_, err = f.s.Sync(ctx, reg.Snapshot())
		require.NoError(t, err)
	}
	body := f.turn(t, Message{Role: RoleAssistant, Text: "ok"}, userMsg("next"))
	msg := body[seen:]
	assert.Equal(t, maxAnnouncedNames, strings.Count(msg, "<new_deferred_tool>"))
	assert.LessOrEqual(t, strings.Count(msg, "<tools_changed"), maxAnnouncedServers+1)
	// The first maxAnnouncedNames arrivals (by name) have blocks; the
	// others are "also new" lines of their servers' blocks, past
	// maxAnnouncedServers in one block whose line is bounded too.
	rest := n - maxAnnouncedNames - maxAnnouncedServers
	assert.Contains(t, msg, fmt.Sprintf("The tools of %d more servers changed during this session.", rest))
	assert.Contains(t, msg, fmt.Sprintf("and %d more", rest-maxAnnouncedNames))
	assert.NotContains(t, msg, "mcp__files__stat")
	assert.Less(t, len(msg), 16<<10, "bounded bytes")
	assert.Zero(t, strings.Count(msg[strings.Index(msg, "next"):], "<tools_changed"), "one set, before the user's text")
}

// noopSyncer returns a session that adopted n arrived tools, and a
// no-op Sync of it: a new snapshot with the same tools, so that every
// tool is compared.
func noopSyncer(t *testing.T, n int) func() time.Duration {
	reg := liveRegistry(t)
	f := newLiveFixture(t, reg, Anthropic, nil)
	tools := make([]registry.Tool, n)
	for i := range tools {
		tools[i] = registry.Tool{Name: fmt.Sprintf("t%05d", i), Description: "A tool.", RawSchema: json.RawMessage(`{"type":"object"}`)}
	}
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "big"}, tools))
	c, err := f.s.Sync(context.Background(), reg.Snapshot())
	require.NoError(t, err)
	require.Len(t, c.Added, n)
	require.NoError(t, reg.SetGroup(registry.Group{Name: "files", Description: "Files."}))
	same := reg.Snapshot()
	return func() time.Duration {
		f.s.mu.Lock()
		f.s.synced = nil
		f.s.mu.Unlock()
		start := time.Now()
		c, err := f.s.Sync(context.Background(), same)
		d := time.Since(start)
		require.NoError(t, err)
		require.Zero(t, c)
		return d
	}
}

// TestViewSyncLinear: a Sync that finds nothing new compares every tool
// once (a map lookup each), so 8× the arrived tools cost about 8× the
// time, not 64× and more (12e017c scanned the arrived tools once per
// tool: ×301 measured). The fastest of 25 runs of each, interleaved so
// that both see the same load, are compared; the bound, 32×, leaves room
// for a busy machine and still fails the quadratic scan.
func TestViewSyncLinear(t *testing.T) {
	if raceEnabled {
		t.Skip("time ratios under the race detector are not the code's")
	}
	small, large := noopSyncer(t, 1000), noopSyncer(t, 8000)
	s, l := time.Hour, time.Hour
	for range 25 {
		s, l = min(s, small()), min(l, large())
	}
	ratio := float64(l) / float64(s)
	t.Logf("no-op Sync: 1,000 arrived %v, 8,000 arrived %v (×%.1f)", s, l, ratio)
	assert.Less(t, ratio, 32.0)
}

// diffBytesPerInputByte returns the bytes definitionDiff allocates per
// byte of its two definitions' canonical forms.
func diffBytesPerInputByte(a, b *registry.Tool) float64 {
	in := len(a.CanonicalDefinition()) + len(b.CanonicalDefinition())
	var before, after runtime.MemStats
	const runs = 20
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range runs {
		_ = definitionDiff(a, b)
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / runs / float64(in)
}

// TestViewPendingDiffBounded: the pending change's diff allocates a
// bounded number of bytes per input byte — a local change of a large
// schema, and a large schema replaced whole — and its text stays within
// the definitions' size.
func TestViewPendingDiffBounded(t *testing.T) {
	props := func(n int, desc string) json.RawMessage {
		var b strings.Builder
		b.WriteString(`{"type":"object","properties":{`)
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"p%03d":{"type":"string","description":"%s %d"}`, i, desc, i)
		}
		b.WriteString(`}}`)
		return json.RawMessage(b.String())
	}
	old := &registry.Tool{Name: "mcp__s__t", Description: "A tool.", RawSchema: props(150, "field")}
	local := &registry.Tool{Name: "mcp__s__t", Description: "A tool, changed.", RawSchema: props(150, "field")}
	whole := &registry.Tool{Name: "mcp__s__t", Description: "A tool.", RawSchema: props(150, "other field")}
	for name, nt := range map[string]*registry.Tool{"local": local, "whole": whole} {
		perByte := diffBytesPerInputByte(old, nt)
		t.Logf("%s: %.1f bytes allocated per input byte", name, perByte)
		assert.Less(t, perByte, 40.0, name)
		assert.Less(t, len(definitionDiff(old, nt)), 2*(len(old.CanonicalDefinition())+len(nt.CanonicalDefinition())), name)
	}
}

// TestViewRestoreNewerSnapshot: a session that adopted a late server is
// saved; a replica whose registry already has that server restores it
// with its own, newer snapshot — through RestoreSession and through a
// Store — and after Sync builds the same next body as the original, on
// every provider. A frozen tool whose definition changed meanwhile is a
// clear error: the saved prefix cannot be rebuilt from that snapshot.
func TestViewRestoreNewerSnapshot(t *testing.T) {
	late := mcpTool("ping", "Ping the late server.", echoSchema)
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			ctx := context.Background()
			reg := liveRegistry(t)
			start := reg.Snapshot()
			cfg := newLiveFixture(t, reg, p, nil).s.cfg
			cfg.Snapshot, cfg.Cache = start, NewCache()
			s, err := NewSession(cfg)
			require.NoError(t, err)
			_, err = s.BuildRequest(Turn{Messages: []Message{userMsg("hi")}})
			require.NoError(t, err)
			require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "late"}, []registry.Tool{late}))
			_, err = s.Sync(ctx, reg.Snapshot())
			require.NoError(t, err)
			store := &MemoryStore{}
			conv, err := OpenConversation(ctx, store, "c", cfg, nil)
			require.NoError(t, err)
			next := []Message{{Role: RoleAssistant, Text: "ok"}, userMsg("ping it")}
			for _, m := range [][]Message{{userMsg("hi")}} {
				_, err = conv.Session().BuildRequest(Turn{Messages: m})
				require.NoError(t, err)
			}
			_, err = conv.Session().Sync(ctx, reg.Snapshot())
			require.NoError(t, err)
			require.NoError(t, conv.Commit(ctx, "a"))
			saved, err := s.MarshalState()
			require.NoError(t, err)
			want, err := s.BuildRequest(Turn{Messages: next})
			require.NoError(t, err)

			// The replica's registry connected late first: its snapshot
			// has the late server from the start.
			replica := liveRegistry(t)
			require.NoError(t, replica.ReplaceGroup(registry.Group{Name: "late"}, []registry.Tool{late}))
			rcfg := cfg
			rcfg.Snapshot, rcfg.Cache = replica.Snapshot(), NewCache()
			r, err := RestoreSession(rcfg, saved, nil)
			require.NoError(t, err)
			_, err = r.Sync(ctx, replica.Snapshot())
			require.NoError(t, err)
			got, err := r.BuildRequest(Turn{Messages: next})
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got), "RestoreSession")

			o, err := OpenConversation(ctx, store, "c", rcfg, nil)
			require.NoError(t, err)
			_, err = o.Session().Sync(ctx, replica.Snapshot())
			require.NoError(t, err)
			got, err = o.Session().BuildRequest(Turn{Messages: next})
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got), "memory Store")

			// A frozen tool changed on the replica: a clear error.
			require.NoError(t, replica.ReplaceGroup(registry.Group{Name: "files"}, []registry.Tool{
				mcpTool("list_dir", "List the entries of a directory, recursively.", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
				mcpTool("stat", "Show a file's size and modification time.", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
			}))
			rcfg.Snapshot = replica.Snapshot()
			_, err = RestoreSession(rcfg, saved, nil)
			require.ErrorIs(t, err, ErrState)
			assert.Contains(t, err.Error(), `tool "mcp__files__list_dir" changed since the session was saved`)
		})
	}
}

// TestViewForgedStoreRecord: a claim through an unkeyed store. A record
// lists an arrived mcp__late__wipe without its destructive hint; the
// harness's registry has it destructive and its rules deny @destructive:
// opened from the store and synced, the tool is not callable and nothing
// of it is announced. (An MCP server's annotations are not trusted, so
// this case held on 12e017c too; the trusted built-in claim is
// TestViewForgedLiveState's.)
func TestViewForgedStoreRecord(t *testing.T) {
	ctx := context.Background()
	yes := true
	d, err := execute.New(&execute.Options{Permissions: []execute.Permission{{Action: execute.Deny, Pattern: "@destructive"}}})
	require.NoError(t, err)
	cfg := testConfig(liveRegistry(t).Snapshot(), Anthropic, &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("p", "Defer(mcp__*)")}}, nil)
	cfg.SelfBuilt = true

	// The writer of the record saw a harmless wipe.
	forger := liveRegistry(t)
	require.NoError(t, forger.ReplaceGroup(registry.Group{Name: "late"}, []registry.Tool{mcpTool("wipe", "Harmless, reads nothing.", echoSchema)}))
	store := &MemoryStore{}
	conv, err := OpenConversation(ctx, store, "c", cfg, nil)
	require.NoError(t, err)
	_, err = conv.Session().BuildRequest(Turn{Messages: []Message{userMsg("hi")}})
	require.NoError(t, err)
	_, err = conv.Session().Sync(ctx, forger.Snapshot())
	require.NoError(t, err)
	require.NoError(t, conv.Commit(ctx, "a"))

	harness := liveRegistry(t)
	wipe := mcpTool("wipe", "Erase the disk.", echoSchema)
	wipe.Annotations = &registry.Annotations{DestructiveHint: &yes}
	require.NoError(t, harness.ReplaceGroup(registry.Group{Name: "late"}, []registry.Tool{wipe}))
	hcfg := cfg
	hcfg.Dispatcher = d
	o, err := OpenConversation(ctx, store, "c", hcfg, nil)
	require.NoError(t, err)
	s := o.Session()
	// The harness's rules shape another prefix than the forger's: the
	// send check refuses it until the harness declares the restart.
	_, err = s.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, Text: "ok"}, userMsg("next")}})
	require.ErrorIs(t, err, ErrEdited)
	s.DeclareRewrite()
	_, err = s.Sync(ctx, harness.Snapshot())
	require.NoError(t, err)
	_, _, ok := s.Lookup("mcp__late__wipe")
	assert.False(t, ok)
	s.tools.markLoaded("mcp__late__wipe")
	r := s.Call(ctx, registry.DeferExecuteName, json.RawMessage(`{"tool_name":"mcp__late__wipe","params":{"text":"x"}}`))
	assert.True(t, r.IsError)
	assert.NotContains(t, r.Text, "wipe ran")
	body, err := s.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, Text: "ok"}, userMsg("next")}})
	require.NoError(t, err)
	assert.NotContains(t, string(body), "Erase the disk")
}
