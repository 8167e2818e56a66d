package request

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/registry"
)

// vaultSecrets are the texts a denied tool must never show: its name, a
// word only its description has, and a property only its schema has.
var vaultSecrets = []string{"read_secret", "read_config", "zanzibarian", "vault_path_qx", "config_key_qx"}

// vaultRegistry is a built-in Read and a vault server whose read_* tools a
// rule denies: read_secret deferred, read_config resident.
func vaultRegistry(t *testing.T, ran *atomic.Int32) *registry.Registry {
	t.Helper()
	count := func(context.Context, json.RawMessage) (registry.Result, error) {
		ran.Add(1)
		return registry.Result{Text: "ran"}, nil
	}
	r := registry.New(nil)
	require.NoError(t, r.AddGroup(registry.Group{Name: "vault", Description: "Secrets vault."}))
	require.NoError(t, r.Register(
		registry.Tool{Name: "Read", Description: "Read a file.", RawSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`), Handler: count},
		registry.Tool{Group: "vault", Name: "read_secret", Description: "Read a zanzibarian secret from the vault.", RawSchema: json.RawMessage(`{"type":"object","properties":{"vault_path_qx":{"type":"string"}},"required":["vault_path_qx"]}`), DeferLoading: registry.DeferTrue, Handler: count},
		registry.Tool{Group: "vault", Name: "read_config", Description: "Read the zanzibarian vault configuration.", RawSchema: json.RawMessage(`{"type":"object","properties":{"config_key_qx":{"type":"string"}}}`), DeferLoading: registry.DeferFalse, Handler: count},
		registry.Tool{Group: "vault", Name: "write_secret", Description: "Write a secret to the vault.", RawSchema: json.RawMessage(`{"type":"object","properties":{"value":{"type":"string"}}}`), DeferLoading: registry.DeferTrue, Handler: count},
		registry.Tool{Group: "vault", Name: "list_keys", Description: "List the vault's keys.", RawSchema: json.RawMessage(`{"type":"object"}`), DeferLoading: registry.DeferTrue, Handler: count},
	))
	return r
}

func vaultSession(t *testing.T, p Provider, search ToolSearch, opts *execute.Options, ran *atomic.Int32) *Session {
	t.Helper()
	d, err := execute.New(opts)
	require.NoError(t, err)
	cfg := Config{ID: "v", Snapshot: vaultRegistry(t, ran).Snapshot(), Provider: p, Model: testModel(p), ToolSearch: search,
		Extra: tokenExtra(p, "256"), Dispatcher: d}
	s, err := NewSession(cfg)
	require.NoError(t, err)
	return s
}

func assertNoSecret(t *testing.T, text, what string) {
	t.Helper()
	for _, w := range vaultSecrets {
		assert.NotContains(t, text, w, what)
	}
}

// TestDeniedToolIsGone: with Deny(mcp__vault__read_*) the denied tools are
// in no request body of any provider (tools[], index, native deferred
// tools), while the tool an Ask rule selects stays visible.
func TestDeniedToolIsGone(t *testing.T) {
	opts := &execute.Options{Permissions: execute.MustPermissions("Deny(mcp__vault__read_*)", "Ask(mcp__vault__write_*)")}
	for _, p := range providers {
		for _, m := range []ToolSearch{Portable, Native} {
			if checkToolSearch(m, p) != nil {
				continue
			}
			t.Run(fmt.Sprintf("%s/%s", p, m), func(t *testing.T) {
				var ran atomic.Int32
				s := vaultSession(t, p, m, opts, &ran)
				body, err := s.BuildRequest(Turn{Messages: []Message{userMsg("hi")}})
				require.NoError(t, err)
				assertNoSecret(t, string(body), "request body")
				// Listed by full name (native tools[]) or by short name under
				// the server's header (the index).
				assert.Contains(t, string(body), "write_secret", "an Ask rule keeps the tool visible")
				assert.Contains(t, string(body), "list_keys")
				d, ok := s.current().Plan().Explain("mcp__vault__read_secret")
				require.True(t, ok)
				assert.Equal(t, deferral.Hidden, d.State)
				assert.Contains(t, d.Reason, "Deny(mcp__vault__read_*)")
			})
		}
	}
	// Without the rule the same session shows them: the test would notice
	// the fixture losing them.
	var ran atomic.Int32
	s := vaultSession(t, Anthropic, Portable, nil, &ran)
	body, err := s.BuildRequest(Turn{Messages: []Message{userMsg("hi")}})
	require.NoError(t, err)
	assert.Contains(t, string(body), "read_secret")
	assert.Contains(t, string(body), "config_key_qx")
}

// TestDeniedToolNotSearchable: tool_search by name, by select: and by
// words never returns a denied tool's name, schema or description.
func TestDeniedToolNotSearchable(t *testing.T) {
	opts := &execute.Options{Permissions: execute.MustPermissions("Deny(mcp__vault__read_*)")}
	for _, p := range providers {
		var ran atomic.Int32
		s := vaultSession(t, p, Portable, opts, &ran)
		for _, q := range []struct{ args, echo string }{
			{`{"tool_names":["mcp__vault__read_secret"]}`, "mcp__vault__read_secret"},
			{`{"tool_names":["mcp__vault__read_config"]}`, "mcp__vault__read_config"},
			{`{"queries":["select:mcp__vault__read_secret"]}`, "mcp__vault__read_secret"},
			{`{"queries":["zanzibarian secret"]}`, "zanzibarian secret"},
			{`{"queries":["read secret vault"]}`, "read secret vault"},
		} {
			res := s.Call(context.Background(), registry.ToolSearchName, json.RawMessage(q.args))
			// The answer may quote the model's own words back; nothing
			// else of the tool may be in it.
			assertNoSecret(t, strings.ReplaceAll(res.Text, q.echo, ""), q.args)
		}
		assert.False(t, s.LoadedSet().Has("mcp__vault__read_secret"))
		// The same words find the tool when no rule denies it.
		open := vaultSession(t, p, Portable, nil, &ran)
		res := open.Call(context.Background(), registry.ToolSearchName, json.RawMessage(`{"queries":["zanzibarian secret"]}`))
		assert.Contains(t, res.Text, "vault_path_qx")
	}
}

// TestDeniedToolCallAnswersDenied: defer_execute of a denied deferred tool,
// loaded or not, answers "denied" without its schema, and so does a direct
// call of a denied resident one; no handler runs.
func TestDeniedToolCallAnswersDenied(t *testing.T) {
	var evs []execute.Event
	opts := &execute.Options{Permissions: execute.MustPermissions("Deny(mcp__vault__read_*)"), Observer: execute.OnEvent(func(e execute.Event) { evs = append(evs, e) })}
	for _, p := range providers {
		var ran atomic.Int32
		s := vaultSession(t, p, Portable, opts, &ran)
		for _, c := range []struct{ name, args string }{
			{registry.DeferExecuteName, `{"tool_name":"mcp__vault__read_secret","params":{}}`},
			{registry.DeferExecuteName, `{"tool_name":"mcp__vault__read_secret","params":{"vault_path_qx":"a"}}`},
			{registry.DeferExecuteName, `{"tool_name":"mcp__vault__read_config","params":{}}`},
			{"mcp__vault__read_config", `{"config_key_qx":"a"}`},
			{"mcp__vault__read_secret", `{"vault_path_qx":"a"}`},
		} {
			res := s.Call(context.Background(), c.name, json.RawMessage(c.args))
			assert.True(t, res.IsError)
			assert.Contains(t, res.Text, "Permission denied", c.args)
			assert.NotContains(t, res.Text, "vault_path_qx", c.args)
			assert.NotContains(t, res.Text, "config_key_qx", c.args)
			assert.NotContains(t, res.Text, "zanzibarian", c.args)
		}
		assert.Zero(t, ran.Load(), "no handler ran")
		assert.False(t, s.LoadedSet().Has("mcp__vault__read_secret"), "a denied call loads nothing")
		res := s.Call(context.Background(), "Read", json.RawMessage(`{"path":"a"}`))
		require.False(t, res.IsError, res.Text)
		assert.Equal(t, int32(1), ran.Load(), "an allowed tool still runs")
	}
	require.NotEmpty(t, evs)
	assert.Equal(t, execute.EventDenied, evs[0].Kind)
	assert.Equal(t, "Deny(mcp__vault__read_*)", evs[0].Rule)
}

// TestSearchGoesThroughDispatcher: a tool_search call raises an
// "searched" event with its queries and the names it loaded, runs the hooks
// whose pattern matches tool_search (not others), and a hook may block or
// rewrite it.
func TestSearchGoesThroughDispatcher(t *testing.T) {
	var evs []execute.Event
	var seen []string
	block := false
	opts := &execute.Options{
		Observer: execute.OnEvent(func(e execute.Event) { evs = append(evs, e) }),
		Hooks: []execute.Hook{
			{Name: "search-audit", Pattern: "tool_search", Before: func(_ context.Context, c *execute.Call) execute.Verdict {
				seen = append(seen, c.Name+" "+string(c.Params))
				if block {
					return execute.Verdict{Block: true, Reason: "searching is off in this mode"}
				}
				if strings.Contains(string(c.Params), "write") {
					// A filter: searches for writers load the lister instead.
					return execute.Verdict{Params: json.RawMessage(`{"tool_names":["mcp__vault__list_keys"]}`)}
				}
				return execute.Verdict{}
			}},
			{Name: "reads-only", Pattern: "Read", Before: func(_ context.Context, c *execute.Call) execute.Verdict {
				seen = append(seen, "reads-only "+c.Name)
				return execute.Verdict{}
			}},
		},
	}
	var ran atomic.Int32
	s := vaultSession(t, Anthropic, Portable, opts, &ran)
	ctx := execute.WithCallID(context.Background(), "toolu_01")
	res := s.Call(ctx, registry.ToolSearchName, json.RawMessage(`{"queries":["list vault keys"]}`))
	require.False(t, res.IsError, res.Text)
	require.Equal(t, []string{`tool_search {"queries":["list vault keys"]}`}, seen)
	var searched []execute.Event
	for _, e := range evs {
		if e.Kind == execute.EventSearched {
			searched = append(searched, e)
		}
	}
	require.Len(t, searched, 1)
	ev := searched[0]
	assert.Equal(t, registry.ToolSearchName, ev.Tool)
	assert.Equal(t, "toolu_01", ev.CallID)
	assert.Equal(t, []string{"list vault keys"}, ev.Queries)
	assert.Equal(t, s.LoadedSet().Names(), ev.Loaded)
	assert.Contains(t, ev.Loaded, "mcp__vault__list_keys")
	assert.Contains(t, ev.String(), `searched tool_search queries ["list vault keys"] loaded [mcp__vault__list_keys`)

	// A rewrite filters: the search for writers loads the lister only.
	evs = nil
	res = s.Call(ctx, registry.ToolSearchName, json.RawMessage(`{"tool_names":["mcp__vault__write_secret"]}`))
	require.False(t, res.IsError, res.Text)
	assert.NotContains(t, res.Text, "Write a secret")
	assert.False(t, s.LoadedSet().Has("mcp__vault__write_secret"))
	kinds := []execute.EventKind{}
	for _, e := range evs {
		kinds = append(kinds, e.Kind)
	}
	assert.Equal(t, []execute.EventKind{execute.EventAllowed, execute.EventRewritten, execute.EventSearched}, kinds)

	// A block refuses the search; nothing is loaded.
	block = true
	res = s.Call(ctx, registry.ToolSearchName, json.RawMessage(`{"tool_names":["mcp__vault__write_secret"]}`))
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, "searching is off in this mode")
	assert.False(t, s.LoadedSet().Has("mcp__vault__write_secret"))
}

// TestDenySearch: Deny(tool_search) makes every search answer denied and
// load nothing; calls of resident tools still run.
func TestDenySearch(t *testing.T) {
	var evs []execute.Event
	opts := &execute.Options{Permissions: execute.MustPermissions("Deny(tool_search)"), Observer: execute.OnEvent(func(e execute.Event) { evs = append(evs, e) })}
	for _, p := range providers {
		var ran atomic.Int32
		s := vaultSession(t, p, Portable, opts, &ran)
		res := s.Call(context.Background(), registry.ToolSearchName, json.RawMessage(`{"queries":["vault keys"]}`))
		assert.True(t, res.IsError)
		assert.Contains(t, res.Text, `Permission denied: the harness's rules do not allow "tool_search"`)
		assert.NotContains(t, res.Text, "list_keys")
		assert.Empty(t, s.LoadedSet().Names())
		res = s.Call(context.Background(), "Read", json.RawMessage(`{"path":"a"}`))
		assert.False(t, res.IsError, res.Text)
	}
	require.NotEmpty(t, evs)
	assert.Equal(t, execute.EventDenied, evs[0].Kind)
	assert.Equal(t, "Deny(tool_search)", evs[0].Rule)
}

// TestAnnotationRulesSpareSearch: tool_search is read-only and closed-world
// to rules and hooks: Ask(@destructive) and Ask(@openworld) (no approver:
// every ask is a refusal) leave it be, and so does a Deny default with
// Allow(@readonly).
func TestAnnotationRulesSpareSearch(t *testing.T) {
	for _, opts := range []*execute.Options{
		{Permissions: execute.MustPermissions("Ask(@destructive)", "Ask(@openworld)")},
		{Permissions: execute.MustPermissions("Allow(@readonly)"), Default: execute.Deny},
	} {
		d, err := execute.New(opts)
		require.NoError(t, err)
		var ran atomic.Int32
		s, err := NewSession(Config{ID: "v", Snapshot: vaultRegistry(t, &ran).Snapshot(), Provider: OpenAIChat, Model: "m", Dispatcher: d, SelfBuilt: true})
		require.NoError(t, err)
		res := s.Call(context.Background(), registry.ToolSearchName, json.RawMessage(`{"queries":["vault"]}`))
		assert.False(t, res.IsError, "%v: %s", opts.Permissions, res.Text)
	}
}
