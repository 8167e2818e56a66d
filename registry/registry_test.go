package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/internal/engine/toolname"
)

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"Read": true, "mcp__github__create_issue": true, "a-b_c9": true,
		"": false, "a b": false, "a.b": false, "é": false, strings.Repeat("a", 64): true,
		strings.Repeat("a", 65): false, "a/b": false, "a\nb": false,
	} {
		assert.Equal(t, want, toolname.Valid(name), "%q", name)
	}
}

func TestSplitMCPName(t *testing.T) {
	s, tool, ok := toolname.SplitMCP("mcp__sequential-thinking__sequentialthinking")
	assert.True(t, ok)
	assert.Equal(t, "sequential-thinking", s)
	assert.Equal(t, "sequentialthinking", tool)
	_, _, ok = toolname.SplitMCP("Read")
	assert.False(t, ok)
}

func TestRegisterErrors(t *testing.T) {
	r := New(nil)
	require.NoError(t, r.AddGroup(Group{Name: "github"}))
	require.NoError(t, r.Register(Tool{Name: "Read"}, Tool{Name: "create_issue", Group: "github"}))

	tests := []struct {
		name   string
		tools  []Tool
		target error
		want   string
	}{
		{"duplicate built-in", []Tool{{Name: "Read"}}, ErrDuplicateTool, `"Read" is registered by the built-in group and again by the built-in group`},
		{"built-in shadowing an MCP name", []Tool{{Name: "mcp__github__create_issue"}}, ErrDuplicateTool, `by the MCP server "github" and again by the built-in group`},
		{"duplicate in one batch", []Tool{{Name: "X"}, {Name: "X"}}, ErrDuplicateTool, `"X"`},
		{"bad name", []Tool{{Name: "a b"}}, errInvalidName, `"a b"`},
		{"reserved", []Tool{{Name: "tool_search"}}, errReservedName, "entry tool"},
		{"unknown group", []Tool{{Name: "x", Group: "nope"}}, errUnknownGroup, `group "nope"`},
		{"bad tier", []Tool{{Name: "x", Tier: "gold"}}, nil, `tier "gold"`},
		{"bad utf8", []Tool{{Name: "x", Description: "\xff"}}, errInvalidSchema, "UTF-8"},
		{"self-built name taken", []Tool{{Name: "Read", Group: selfBuiltGroup}}, ErrDuplicateTool, `"Read"`},
		{"self-built entry name", []Tool{{Name: "defer_execute", Group: selfBuiltGroup}}, ErrDuplicateTool, `"defer_execute"`},
		{"injected not in schema", []Tool{{Name: "x", Injected: []string{"token"}}}, errInvalidSchema, `injected field "token"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := r.Snapshot().Version()
			err := r.Register(tc.tools...)
			require.Error(t, err)
			if tc.target != nil {
				assert.True(t, errors.Is(err, tc.target), "%v", err)
			}
			assert.Contains(t, err.Error(), tc.want)
			assert.Equal(t, v, r.Snapshot().Version(), "a failed registration changes nothing")
		})
	}
	assert.Equal(t, 2, len(r.Snapshot().Tools()))
}

func TestGroupErrors(t *testing.T) {
	r := New(nil)
	require.NoError(t, r.AddGroup(Group{Name: "empty", Description: "no tools yet"}))
	assert.ErrorIs(t, r.AddGroup(Group{Name: "empty"}), ErrDuplicateGroup)
	assert.ErrorIs(t, r.AddGroup(Group{Name: builtinGroup}), errReservedName)
	assert.ErrorIs(t, r.AddGroup(Group{Name: "a__b"}), errInvalidName)
	assert.ErrorIs(t, r.RemoveGroup(selfBuiltGroup), errReservedName)
	assert.ErrorIs(t, r.RemoveGroup("nope"), errUnknownGroup)
	assert.ErrorIs(t, r.Remove("nope"), errUnknownTool)
	// A server with no tools is still a group.
	g, ok := r.Snapshot().Group("empty")
	require.True(t, ok)
	assert.Equal(t, SourceMCP, g.Source)
}

func TestSelfBuilt(t *testing.T) {
	r := New(&Options{MaxSelfBuiltDescription: 10, MaxSelfBuiltSchema: 100})
	require.NoError(t, r.Register(Tool{Group: selfBuiltGroup, Name: "sum", Description: "{{time}}", DeferLoading: DeferFalse, Template: true}))
	tl, ok := r.Snapshot().Tool("sum")
	require.True(t, ok)
	assert.Equal(t, SourceSelfBuilt, tl.Source)
	assert.Equal(t, DeferTrue, tl.DeferLoading, "self-built tools are always deferred")
	assert.False(t, tl.Template, "self-built descriptions are literal text")
	assert.Equal(t, "{{time}}", tl.Description)

	err := r.Register(Tool{Group: selfBuiltGroup, Name: "long", Description: "12345678901"})
	assert.ErrorIs(t, err, errTooLarge)
	assert.Contains(t, err.Error(), "11 runes, the bound is 10")
	err = r.Register(Tool{Group: selfBuiltGroup, Name: "big", RawSchema: []byte(`{"type":"object","description":"` + strings.Repeat("x", 100) + `"}`)})
	assert.ErrorIs(t, err, errTooLarge)
	assert.ErrorIs(t, r.Register(Tool{Group: selfBuiltGroup, Name: "sum"}), ErrDuplicateTool)
}

func TestModelSchemaStripsInjected(t *testing.T) {
	r := New(nil)
	require.NoError(t, r.Register(Tool{
		Name:      "post",
		RawSchema: []byte(`{"type":"object","properties":{"text":{"type":"string"},"auth_token":{"type":"string","description":"long"}},"required":["text","auth_token"]}`),
		Injected:  []string{"auth_token"},
	}))
	tl, _ := r.Snapshot().Tool("post")
	assert.Equal(t, `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`, string(tl.ModelSchema()))
	assert.Contains(t, string(tl.RawSchema), "auth_token", "validation still sees the injected field")
}

func TestReplaceGroup(t *testing.T) {
	r := New(nil)
	require.NoError(t, r.ReplaceGroup(Group{Name: "srv", Description: "v1"}, []Tool{{Name: "a"}, {Name: "b"}}))
	require.NoError(t, r.ReplaceGroup(Group{Name: "srv", Description: "v2"}, []Tool{{Name: "b"}, {Name: "c"}}))
	s := r.Snapshot()
	assert.Equal(t, []string{"mcp__srv__b", "mcp__srv__c"}, names(s))
	g, _ := s.Group("srv")
	assert.Equal(t, "v2", g.Description)
	// A bad tool is left out and reported; the rest of the server stays.
	require.NoError(t, r.Register(Tool{Name: "mcp__srv2__x"}))
	require.NoError(t, r.ReplaceGroup(Group{Name: "srv"}, []Tool{{Name: "ok"}, {Name: "bad", Description: "\xff"}}))
	assert.Equal(t, []string{"mcp__srv2__x", "mcp__srv__ok"}, names(r.Snapshot()))
	rej := r.Rejected()
	require.Len(t, rej, 1)
	assert.Equal(t, "srv", rej[0].Group)
	assert.Equal(t, "bad", rej[0].Name)
	assert.ErrorIs(t, rej[0].Err, errInvalidSchema)
	// The next clean listing clears the report.
	require.NoError(t, r.ReplaceGroup(Group{Name: "srv"}, []Tool{{Name: "b"}, {Name: "c"}}))
	assert.Empty(t, r.Rejected())

	// Strict: a failing replacement leaves the old contents.
	r = New(&Options{StrictImport: true})
	require.NoError(t, r.ReplaceGroup(Group{Name: "srv"}, []Tool{{Name: "b"}, {Name: "c"}}))
	require.NoError(t, r.Register(Tool{Name: "mcp__srv2__x"}))
	err := r.ReplaceGroup(Group{Name: "srv"}, []Tool{{Name: "ok"}, {Name: "bad", Description: "\xff"}})
	require.ErrorIs(t, err, errInvalidSchema)
	assert.Equal(t, []string{"mcp__srv2__x", "mcp__srv__b", "mcp__srv__c"}, names(r.Snapshot()))
	assert.Empty(t, r.Rejected())
}

func names(s *Snapshot) []string {
	var out []string
	for _, t := range s.Tools() {
		out = append(out, t.Name)
	}
	return out
}

// sortedOrder computes the documented order independently of the snapshot:
// built-in, then servers by name, then self-built; names bytewise.
func sortedOrder(tools []Tool) []string {
	type key struct {
		rank        int
		group, name string
	}
	var keys []key
	for _, t := range tools {
		switch {
		case t.Group == "" || t.Group == builtinGroup:
			keys = append(keys, key{0, "", t.Name})
		case t.Group == selfBuiltGroup:
			keys = append(keys, key{2, "", t.Name})
		default:
			keys = append(keys, key{1, t.Group, toolname.MCPName(t.Group, t.Name)})
		}
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		if c := strings.Compare(a.group, b.group); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.name
	}
	return out
}

// TestShuffledConcurrentRegistration registers the same tools in many
// shuffled orders from many goroutines and checks each snapshot equals the
// independently sorted order, not merely that runs agree.
func TestShuffledConcurrentRegistration(t *testing.T) {
	var tools []Tool
	for _, srv := range []string{"zeta", "alpha", "a-b", "a_b", "A"} {
		for i := range 15 {
			tools = append(tools, Tool{Name: fmt.Sprintf("t%02d_%c", i, 'a'+i%3), Group: srv})
		}
	}
	for _, n := range []string{"Write", "read", "Read", "_x", "-y", "Zed", "a", "B"} {
		tools = append(tools, Tool{Name: n})
	}
	want := sortedOrder(append(slices.Clone(tools), Tool{Name: "made", Group: selfBuiltGroup}, Tool{Name: "Also", Group: selfBuiltGroup}))

	for run := range 20 {
		r := New(nil)
		for _, srv := range []string{"zeta", "alpha", "a-b", "a_b", "A"} {
			require.NoError(t, r.AddGroup(Group{Name: srv}))
		}
		rng := rand.New(rand.NewPCG(uint64(run), 7))
		order := slices.Clone(tools)
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < len(order); i += 8 {
					assert.NoError(t, r.Register(order[i]))
					_ = r.Snapshot() // readers race with writers
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.NoError(t, r.Register(Tool{Group: selfBuiltGroup, Name: "made"}))
			assert.NoError(t, r.Register(Tool{Group: selfBuiltGroup, Name: "Also"}))
		}()
		wg.Wait()
		s := r.Snapshot()
		require.Equal(t, want, names(s), "run %d", run)
		assert.Same(t, s, r.Snapshot(), "snapshots are cached until a change")
		gs := s.Groups()
		var gn []string
		for _, g := range gs {
			gn = append(gn, g.Name)
		}
		assert.Equal(t, []string{builtinGroup, "A", "a-b", "a_b", "alpha", "zeta", selfBuiltGroup}, gn)
	}
}

func TestSnapshotIsImmutable(t *testing.T) {
	r := New(nil)
	require.NoError(t, r.Register(Tool{Name: "a"}))
	s1 := r.Snapshot()
	require.NoError(t, r.Register(Tool{Name: "b"}))
	require.NoError(t, r.Remove("a"))
	assert.Equal(t, []string{"a"}, names(s1))
	assert.Equal(t, []string{"b"}, names(r.Snapshot()))
	assert.Less(t, s1.Version(), r.Snapshot().Version())
}

// An MCP tool whose prefixed name breaks the providers' rule (over 64
// characters, or a "." as MCP allows since 2025-11-25) is registered under
// a deterministic alias of at most 64 characters; it keeps the server's
// name, which its handler is called with. Before, the whole server failed
// to import.
func TestMCPAlias(t *testing.T) {
	long := strings.Repeat("x", 70-len("mcp__github__"))
	r := New(nil)
	c := &Catalog{Server: "github", Tools: []Tool{{Name: long}, {Name: "repos.list"}, {Name: "repos_list"}, {Name: "get_me"}}}
	require.NoError(t, r.Import(c))
	byOrig := map[string]string{}
	for _, tl := range r.Snapshot().Tools() {
		require.True(t, toolname.Valid(tl.Name), tl.Name)
		byOrig[tl.OriginalName] = tl.Name
	}
	assert.Equal(t, "mcp__github__get_me", byOrig["get_me"], "a valid name is left alone")
	assert.Equal(t, "mcp__github__repos_list", byOrig["repos_list"])
	assert.Regexp(t, `^mcp__github__repos_list_[0-9a-f]{8}$`, byOrig["repos.list"], "readable prefix + hash, never the valid name it reads like")
	assert.Regexp(t, `^mcp__github__x{42}_[0-9a-f]{8}$`, byOrig[long])
	assert.Len(t, byOrig[long], toolname.MaxLen)
	assert.Equal(t, byOrig["repos.list"], toolname.MCPName("github", "repos.list"), "MCPName gives the alias")
	server, tool, ok := toolname.SplitMCP(byOrig["repos.list"])
	assert.True(t, ok)
	assert.Equal(t, "github", server)
	assert.Equal(t, byOrig["repos.list"], toolname.MCPPrefix+server+"__"+tool)

	// Same input, same alias, whatever the registration order.
	r2 := New(nil)
	c2 := &Catalog{Server: "github", Tools: []Tool{{Name: "get_me"}, {Name: "repos_list"}, {Name: "repos.list"}, {Name: long}}}
	require.NoError(t, r2.Import(c2))
	assert.Equal(t, names(r.Snapshot()), names(r2.Snapshot()))

	// A long server name: the github server under a 40-character group.
	group := strings.Repeat("g", 40)
	r3 := New(nil)
	require.NoError(t, r3.Import(&Catalog{Server: group, Tools: []Tool{{Name: "pull_request_review_write"}}}))
	got := r3.Snapshot().Tools()[0].Name
	assert.LessOrEqual(t, len(got), toolname.MaxLen)
	assert.True(t, strings.HasPrefix(got, toolname.MCPPrefix+group+"__pull"), got)
	assert.NotEqual(t, toolname.Alias("a.b"), toolname.Alias("a,b"))
	assert.Equal(t, toolname.Alias("a.b"), toolname.Alias("a.b"))
}

// TestSchemaGetsObjectType: a schema without "type" (allowed by JSON
// Schema, refused by every provider for a tool) is registered with
// "type":"object" written in, in the bytes sent and in the parsed schema;
// a schema built in Go is copied, not modified; a type list is refused.
func TestSchemaGetsObjectType(t *testing.T) {
	r := New(nil)
	built := &jsonschema.Schema{Properties: map[string]*jsonschema.Schema{"q": {Type: "string"}}}
	require.NoError(t, r.Register(
		Tool{Name: "untyped", RawSchema: json.RawMessage(`{"properties": {"q": {"type": "string"}}}`)},
		Tool{Name: "empty", RawSchema: json.RawMessage(`{}`)},
		Tool{Name: "typed", RawSchema: json.RawMessage(`{"properties":{},"type":"object"}`)},
		Tool{Name: "built", InputSchema: built},
	))
	snap := r.Snapshot()
	for name, want := range map[string]string{
		"untyped": `{"type":"object","properties":{"q":{"type":"string"}}}`,
		"empty":   `{"type":"object"}`,
		"typed":   `{"properties":{},"type":"object"}`,
		"built":   `{"type":"object","properties":{"q":{"type":"string"}}}`,
	} {
		tool, ok := snap.Tool(name)
		require.True(t, ok, name)
		assert.Equal(t, want, string(tool.ModelSchema()), name)
		assert.Equal(t, "object", tool.InputSchema.Type, name)
	}
	assert.Empty(t, built.Type, "the caller's schema is not modified")
	err := r.Register(Tool{Name: "nullable", RawSchema: json.RawMessage(`{"type":["object","null"]}`)})
	require.ErrorIs(t, err, errInvalidSchema)
	assert.Contains(t, err.Error(), `must be "object"`)
}
