package request

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/registry"
)

// indexEntry is one name of the index and the full name it stands for.
type indexEntry struct{ listed, full string }

// readIndex reads an index as tool_search's description tells the model
// to: a name indented under "mcp__<server>: ..." is mcp__<server>__<name>
// unless it starts with "mcp__"; a name under no header is a full name.
func readIndex(t *testing.T, index string) []indexEntry {
	t.Helper()
	var out []indexEntry
	server := ""
	for _, l := range strings.Split(index, "\n") {
		switch {
		case l == "<available_deferred_tools>" || l == "</available_deferred_tools>" || strings.HasPrefix(l, "["):
		case strings.HasPrefix(l, "  "):
			require.NotEmpty(t, server, l)
			full := l[2:]
			if !strings.HasPrefix(full, toolname.MCPPrefix) {
				full = toolname.MCPPrefix + server + "__" + full
			}
			out = append(out, indexEntry{l[2:], full})
		case strings.HasPrefix(l, toolname.MCPPrefix) && strings.Contains(l, ":"):
			server = strings.TrimPrefix(l[:strings.Index(l, ":")], toolname.MCPPrefix)
		default:
			out = append(out, indexEntry{l, l})
		}
	}
	return out
}

// runnable gives every tool of c a schema any object meets and a handler
// that says which tool ran, by the name its server knows it by.
func runnable(c *registry.Catalog) {
	for i := range c.Tools {
		own := c.Server + "/" + c.Tools[i].Name
		c.Tools[i].RawSchema, c.Tools[i].InputSchema = json.RawMessage(`{"type":"object"}`), nil
		c.Tools[i].Handler = func(context.Context, json.RawMessage) (registry.Result, error) {
			return registry.Result{Text: "ran " + own}, nil
		}
	}
}

// collidingCatalogs are MCP servers whose short names collide every way,
// with a Chinese server whose tool names need aliases, and an alias of a
// name over 64 characters.
func collidingCatalogs() []*registry.Catalog {
	tool := func(n string) registry.Tool { return registry.Tool{Name: n, Description: "Tool " + n + "."} }
	return []*registry.Catalog{
		{Server: "github", Description: "GitHub", Tools: []registry.Tool{tool("create_issue"), tool("list_issues")}},
		{Server: "gitlab", Description: "GitLab", Tools: []registry.Tool{tool("create_issue"), tool("merge")}},
		{Server: "fs", Description: "files", Tools: []registry.Tool{tool("Read"), tool("defer_execute"), tool("mcp__github__list_issues"), tool("read_" + strings.Repeat("very_", 12) + "long_file")}},
		{Server: "docs", Description: "文档服务端描述", Tools: []registry.Tool{tool("创建文档"), tool("读取文档"), tool("read_doc")}},
		{Description: "built-ins", Tools: []registry.Tool{tool("Read")}},
	}
}

// shortNameSession imports cats, made runnable, defers every tool, and
// opens a session whose dispatcher records the name each hook saw.
func shortNameSession(t *testing.T, p Provider, cats []*registry.Catalog, rules ...string) (*Session, *[]string) {
	t.Helper()
	reg := registry.New(nil)
	for _, c := range cats {
		runnable(c)
		require.NoError(t, reg.Import(c))
	}
	var seen []string
	d, err := execute.New(&execute.Options{
		Permissions: execute.MustPermissions(rules...),
		Hooks: []execute.Hook{{Name: "audit", Before: func(_ context.Context, c *execute.Call) execute.Verdict {
			seen = append(seen, c.Name)
			return execute.Verdict{}
		}}},
	})
	require.NoError(t, err)
	cfg := testConfig(reg.Snapshot(), p, &deferral.Policy{Default: deferral.DefaultDefer}, nil)
	cfg.Dispatcher = d
	s, err := NewSession(cfg)
	require.NoError(t, err)
	return s, &seen
}

// TestIndexNamesResolve: every name the index lists — for each shared
// catalog, all ten together, and servers whose short names collide — loads
// its own tool through tool_search (tool_names and select:) and runs it
// through defer_execute, the guards seeing the full name; and the index is
// in the prefix where the provider carries it.
func TestIndexNamesResolve(t *testing.T) {
	paths, err := filepath.Glob("../testdata/catalogs/*.tools.json")
	require.NoError(t, err)
	require.Len(t, paths, 10)
	sets := map[string][]string{"all ten": paths}
	for _, p := range paths {
		sets[filepath.Base(p)] = []string{p}
	}
	load := func(files []string) []*registry.Catalog {
		var cats []*registry.Catalog
		for _, f := range files {
			c, err := registry.LoadCatalog(f)
			require.NoError(t, err)
			cats = append(cats, c)
		}
		return cats
	}
	ctx := context.Background()
	check := func(t *testing.T, p Provider, cats []*registry.Catalog) {
		s, seen := shortNameSession(t, p, cats)
		index := s.current().Index()
		var quoted strings.Builder
		enc := json.NewEncoder(&quoted)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(index))
		assert.Contains(t, string(s.Prefix()), strings.Trim(strings.TrimSpace(quoted.String()), `"`), "the index is in the frozen prefix")
		entries := readIndex(t, index)
		require.NotEmpty(t, entries)
		for _, e := range entries {
			tool, ok := s.current().Plan().Snapshot().Tool(e.full)
			ok = ok && s.current().Plan().State(e.full) != deferral.Hidden
			require.True(t, ok, "%q stands for %q, a visible tool", e.listed, e.full)
			r := s.Call(ctx, registry.ToolSearchName, json.RawMessage(`{"tool_names":["`+e.listed+`"]}`))
			require.False(t, r.IsError, r.Text)
			assert.Contains(t, r.Text, "## "+e.full+"\n", e.listed)
			r = s.Call(ctx, registry.ToolSearchName, json.RawMessage(`{"queries":["select:`+e.listed+`"]}`))
			require.False(t, r.IsError, r.Text)
			assert.Equal(t, e.full+" is already loaded (its schema is earlier in this conversation): call it with defer_execute.", r.Text, "select:"+e.listed)
			*seen = nil
			r = s.Call(ctx, registry.DeferExecuteName, json.RawMessage(`{"tool_name":"`+e.listed+`","params":{}}`))
			require.False(t, r.IsError, r.Text)
			own := tool.OriginalName
			if tool.Source == registry.SourceMCP {
				own = tool.Group + "/" + own
			} else {
				own = "/" + own
			}
			assert.Equal(t, "ran "+own, r.Text, "%q runs its own tool", e.listed)
			assert.Equal(t, []string{e.full}, *seen, "the hook sees the full name")
		}
	}
	for name, files := range sets {
		t.Run(name, func(t *testing.T) { check(t, Anthropic, load(files)) })
	}
	for _, p := range providers {
		t.Run("colliding/"+string(p), func(t *testing.T) { check(t, p, collidingCatalogs()) })
		t.Run("all ten/"+string(p), func(t *testing.T) { check(t, p, load(paths)) })
	}
}

// TestAmbiguousShortName: a short name two tools share answers with both
// full names and runs nothing; a deny rule written on the full name stops
// the tool called by its short name.
func TestAmbiguousShortName(t *testing.T) {
	ctx := context.Background()
	s, seen := shortNameSession(t, Anthropic, collidingCatalogs(), "Deny(mcp__gitlab__merge)")
	index := s.current().Index()
	assert.Contains(t, index, "mcp__github: GitHub\n  list_issues\n  mcp__github__create_issue\n")
	assert.Contains(t, index, "mcp__fs: files\n  mcp__fs__Read\n  mcp__fs__defer_execute\n  mcp__fs__mcp__github__list_issues\n")

	r := s.Call(ctx, registry.ToolSearchName, json.RawMessage(`{"tool_names":["create_issue"]}`))
	assert.True(t, r.IsError, r.Text)
	assert.Contains(t, r.Text, "mcp__github__create_issue, mcp__gitlab__create_issue")
	r = s.Call(ctx, registry.DeferExecuteName, json.RawMessage(`{"tool_name":"create_issue","params":{}}`))
	assert.True(t, r.IsError, r.Text)
	assert.Contains(t, r.Text, `"create_issue" is the short name of 2 tools: "mcp__github__create_issue", "mcp__gitlab__create_issue". Nothing was run.`)
	for _, name := range *seen {
		assert.Equal(t, registry.ToolSearchName, name, "nothing ran but the searches (which go through the dispatcher's hooks)")
	}

	// A tool whose every call a rule on its full name denies is gone (issue
	// 26): its short name resolves to nothing, and nothing names it.
	r = s.Call(ctx, registry.ToolSearchName, json.RawMessage(`{"tool_names":["merge"]}`))
	assert.NotContains(t, r.Text, "mcp__gitlab__merge")
	r = s.Call(ctx, registry.DeferExecuteName, json.RawMessage(`{"tool_name":"merge","params":{}}`))
	assert.True(t, r.IsError, r.Text)
	assert.NotContains(t, r.Text, "mcp__gitlab__merge")
	assert.NotContains(t, *seen, "mcp__gitlab__merge", "its handler and hooks never ran")

	// A built-in's full name means the built-in, never the server's Read.
	require.False(t, s.Call(ctx, registry.ToolSearchName, json.RawMessage(`{"tool_names":["Read"]}`)).IsError)
	r = s.Call(ctx, registry.DeferExecuteName, json.RawMessage(`{"tool_name":"Read","params":{}}`))
	require.False(t, r.IsError, r.Text)
	assert.Equal(t, "ran /Read", r.Text)
}
