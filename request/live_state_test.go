package request

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/registry"
)

// liveReplica is one process's registry: the snapshot sessions froze on,
// and the one after a late server connected and a tool changed.
type liveReplica struct {
	start, late *registry.Snapshot
}

func newLiveReplica(t testing.TB) liveReplica {
	reg := liveRegistry(t)
	r := liveReplica{start: reg.Snapshot()}
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "late"}, []registry.Tool{mcpTool("sum", "Add two numbers and return their sum.", sumSchema)}))
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "files"}, []registry.Tool{
		mcpTool("list_dir", "List the entries of a directory.", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
		mcpTool("stat", "Show a file's size, owner and modification time.", `{"type":"object","properties":{"path":{"type":"string"},"follow":{"type":"boolean"}},"required":["path"]}`),
	}))
	r.late = reg.Snapshot()
	return r
}

// liveSteps is a conversation over a late server and a pinned change:
// each step syncs the session with the replica's current snapshot, may act
// on the session (calls, approval) and returns the turn's messages.
func liveSteps() []func(t testing.TB, s *Session, r liveReplica) []Message {
	callMsgs := func(t testing.TB, s *Session, id, name, args string) []Message {
		res := s.Call(context.Background(), name, json.RawMessage(args))
		return []Message{call(id, name, args), {Role: RoleTool, CallID: id, Text: res.Text, IsError: res.IsError}}
	}
	sync := func(t testing.TB, s *Session, snap *registry.Snapshot) {
		_, err := s.Sync(context.Background(), snap)
		require.NoError(t, err)
	}
	return []func(t testing.TB, s *Session, r liveReplica) []Message{
		func(t testing.TB, s *Session, r liveReplica) []Message {
			sync(t, s, r.start)
			return []Message{userMsg("add 2 and 3, then stat /")}
		},
		func(t testing.TB, s *Session, r liveReplica) []Message {
			sync(t, s, r.late)
			return callMsgs(t, s, "c1", registry.ToolSearchName, `{"queries":["add two numbers"]}`)
		},
		func(t testing.TB, s *Session, r liveReplica) []Message {
			sync(t, s, r.late)
			msgs := callMsgs(t, s, "c2", registry.DeferExecuteName, `{"tool_name":"mcp__late__sum","params":{"a":2,"b":3}}`)
			return append(msgs, callMsgs(t, s, "c3", registry.ToolSearchName, `{"tool_names":["mcp__files__stat"]}`)...)
		},
		func(t testing.TB, s *Session, r liveReplica) []Message {
			sync(t, s, r.late)
			pend := s.PendingChanges()
			require.Len(t, pend, 1)
			require.NoError(t, s.ApproveChange(pend[0].Tool, pend[0].NewSHA256))
			return []Message{{Role: RoleAssistant, Text: "5. Checking the file."}, userMsg("go on")}
		},
		func(t testing.TB, s *Session, r liveReplica) []Message {
			sync(t, s, r.late)
			return callMsgs(t, s, "c4", registry.DeferExecuteName, `{"tool_name":"mcp__files__stat","params":{"path":"/","follow":true}}`)
		},
	}
}

// TestSyncStateTravels: a conversation with a late server and a pinned
// (then approved) change builds the same bytes in one session, in a
// session restored from MarshalState at every turn, and on three replicas
// taking turns through a Store — each with its own registry.
func TestSyncStateTravels(t *testing.T) {
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			cfgFor := func(r liveReplica) Config {
				cfg := newLiveFixture(t, liveRegistry(t), p, nil).s.cfg
				cfg.Snapshot, cfg.Cache = r.start, NewCache()
				return cfg
			}
			one := newLiveReplica(t)
			s, err := NewSession(cfgFor(one))
			require.NoError(t, err)
			var want []string
			for _, step := range liveSteps() {
				body, err := s.BuildRequest(Turn{Messages: step(t, s, one)})
				require.NoError(t, err)
				require.Equal(t, string(s.Prefix()), string(body[:len(s.Prefix())]))
				want = append(want, string(body))
			}
			assert.Contains(t, want[1], "mcp__late__sum (new from MCP server late)")
			assert.Contains(t, want[2], `sum ran with {\"a\":2,\"b\":3}`)
			assert.NotContains(t, want[2], "owner", "the pinned definition is the one loaded")
			assert.Contains(t, want[4], "Updated (the definition changed")

			t.Run("MarshalState", func(t *testing.T) {
				r := newLiveReplica(t)
				var saved []byte
				for i, step := range liveSteps() {
					var s *Session
					var err error
					if saved == nil {
						s, err = NewSession(cfgFor(r))
					} else {
						s, err = RestoreSession(cfgFor(r), saved, nil)
					}
					require.NoError(t, err)
					body, err := s.BuildRequest(Turn{Messages: step(t, s, r)})
					require.NoError(t, err)
					assert.Equal(t, want[i], string(body), "turn %d", i)
					saved, err = s.MarshalState()
					require.NoError(t, err)
				}
			})
			t.Run("Store", func(t *testing.T) {
				store := &MemoryStore{}
				replicas := []liveReplica{newLiveReplica(t), newLiveReplica(t), newLiveReplica(t)}
				cfgs := []Config{cfgFor(replicas[0]), cfgFor(replicas[1]), cfgFor(replicas[2])}
				for i, step := range liveSteps() {
					k := i % 3
					conv, err := OpenConversation(context.Background(), store, "live", cfgs[k], nil)
					require.NoError(t, err)
					body, err := conv.Session().BuildRequest(Turn{Messages: step(t, conv.Session(), replicas[k])})
					require.NoError(t, err)
					assert.Equal(t, want[i], string(body), "turn %d on replica %d", i, k)
					require.NoError(t, conv.Commit(context.Background(), string(rune('a'+i))))
				}
			})
		})
	}
}

// TestRestoreLiveValidates: stored live state never widens the session —
// a definition that is not valid, a name the session does not have, or a
// hash that does not match its definition is refused.
func TestRestoreLiveValidates(t *testing.T) {
	r := newLiveReplica(t)
	f := newLiveFixture(t, liveRegistry(t), Anthropic, nil)
	cfg := f.s.cfg
	cfg.Snapshot = r.start
	s, err := NewSession(cfg)
	require.NoError(t, err)
	_, err = s.Sync(context.Background(), r.late)
	require.NoError(t, err)
	_, err = s.BuildRequest(Turn{Messages: []Message{userMsg("hi")}})
	require.NoError(t, err)
	saved, err := s.MarshalState()
	require.NoError(t, err)
	restored, err := RestoreSession(cfg, saved, nil)
	require.NoError(t, err)
	assert.Equal(t, s.PendingChanges(), restored.PendingChanges())
	res := restored.Call(context.Background(), registry.DeferExecuteName, json.RawMessage(`{"tool_name":"mcp__late__sum","params":{"a":1,"b":2}}`))
	assert.True(t, res.IsError, "loaded? no: first the schema")
	restored.LoadedSet().Add("mcp__late__sum")
	res = restored.Call(context.Background(), registry.DeferExecuteName, json.RawMessage(`{"tool_name":"mcp__late__sum","params":{"a":1,"b":2}}`))
	assert.Contains(t, res.Text, "Unknown tool", "a stored tool is hidden until Sync finds it in the harness's registry")
	_, err = restored.Sync(context.Background(), r.late)
	require.NoError(t, err)
	res = restored.Call(context.Background(), registry.DeferExecuteName, json.RawMessage(`{"tool_name":"mcp__late__sum","params":{"a":1,"b":2}}`))
	assert.False(t, res.IsError, res.Text)

	var st map[string]any
	require.NoError(t, json.Unmarshal(saved, &st))
	for name, edit := range map[string]func(live map[string]any){
		"unknown removed name": func(l map[string]any) { l["removed"] = []any{"mcp__files__nope"} },
		"entry tool removed":   func(l map[string]any) { l["removed"] = []any{"tool_search"} },
		"bad schema": func(l map[string]any) {
			l["arrived"].([]any)[0].(map[string]any)["input_schema"] = map[string]any{"type": 7}
		},
		"renamed arrival": func(l map[string]any) {
			l["arrived"].([]any)[0].(map[string]any)["name"] = "mcp__late__other"
		},
		"arrival shadows a frozen tool": func(l map[string]any) {
			a := l["arrived"].([]any)[0].(map[string]any)
			a["name"], a["original_name"], a["group"] = "mcp__files__stat", "stat", "files"
		},
		"forged hash": func(l map[string]any) {
			l["pending"].([]any)[0].(map[string]any)["new_sha256"] = "00"
		},
		"pending server not configured": func(l map[string]any) { l["pending_servers"] = []any{"elsewhere"} },
	} {
		t.Run(name, func(t *testing.T) {
			var st map[string]any
			require.NoError(t, json.Unmarshal(saved, &st))
			edit(st["live"].(map[string]any))
			b, err := json.Marshal(st)
			require.NoError(t, err)
			_, err = RestoreSession(cfg, b, nil)
			require.ErrorIs(t, err, ErrState)
		})
	}
}

// FuzzRestoreLive: stored live state, however damaged, never panics a
// restore, and once the restored session syncs with the harness's registry
// it sees no tool the harness does not have.
func FuzzRestoreLive(f *testing.F) {
	r := newLiveReplica(f)
	fix := newLiveFixture(f, liveRegistry(f), Anthropic, nil)
	cfg := fix.s.cfg
	cfg.Snapshot, cfg.Cache = r.start, NewCache()
	s, err := NewSession(cfg)
	require.NoError(f, err)
	for i, step := range liveSteps() {
		_, err := s.BuildRequest(Turn{Messages: step(f, s, r)})
		require.NoError(f, err)
		saved, err := s.MarshalState()
		require.NoError(f, err)
		f.Add(saved)
		if i == 2 {
			_, err := s.Sync(context.Background(), r.start) // the late server leaves again
			require.NoError(f, err)
		}
	}
	f.Fuzz(func(t *testing.T, saved []byte) {
		restored, err := RestoreSession(cfg, saved, nil)
		if err != nil {
			return
		}
		if _, err := restored.Sync(context.Background(), r.late); err != nil {
			return
		}
		for _, name := range restored.visibleNames() {
			if tl, _, ok := restored.Lookup(name); ok && tl.Source == registry.SourceSelfBuilt {
				continue // the model's own tools travel by design
			}
			_, frozen := r.start.Tool(name)
			_, current := r.late.Tool(name)
			if !frozen && !current && name != registry.ToolSearchName && name != registry.DeferExecuteName {
				t.Fatalf("restored state made %q visible, which the harness's registry does not hold", name)
			}
		}
	})
}
