package execute_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
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

// aliasServer gives server names of 40 bytes: under one, every tool name
// of more than 17 bytes, or with a character such as "." that MCP allows
// and providers do not, is exposed by its alias.
func aliasServer(i int) string { return fmt.Sprintf("acme-enterprise-knowledge-base-conn%05d", i) }

// aliasedTools imports every tool catalog under testdata/ twice (under its
// own server name, if it has one, and under aliasServer), with a schema
// that accepts any object (the guards, not validation, are under test),
// and returns the registry and its aliased tools.
func aliasedTools(t *testing.T, c *counter) (*registry.Registry, []*registry.Tool) {
	t.Helper()
	files, err := filepath.Glob("../testdata/catalogs/*.tools.json")
	require.NoError(t, err)
	more, err := filepath.Glob("../testdata/benchmarks/*/catalog.json")
	require.NoError(t, err)
	files = append(append(files, more...), "../testdata/fixtures/harness-catalog.json")
	reg := registry.New(nil)
	for i, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		servers := []string{aliasServer(i)}
		cat, err := registry.ParseCatalog(data)
		require.NoError(t, err, f)
		if cat.Server != "" {
			servers = append(servers, cat.Server)
		}
		for _, server := range servers {
			c2 := *cat
			c2.Server = server
			c2.Tools = nil
			for _, tl := range cat.Tools {
				if strings.HasPrefix(tl.Name, toolname.MCPPrefix) {
					continue
				}
				name := toolname.MCPName(server, tl.Name)
				tl.RawSchema, tl.InputSchema, tl.Injected = json.RawMessage(`{"type":"object"}`), nil, nil
				tl.Handler = c.handler(name)
				c2.Tools = append(c2.Tools, tl)
			}
			require.NoError(t, reg.Import(&c2), f)
		}
	}
	var out []*registry.Tool
	for _, tl := range reg.Snapshot().Tools() {
		if tl.Aliased() {
			out = append(out, tl)
		}
	}
	return reg, out
}

// realNamePattern writes a tool's real name as a permission pattern:
// characters a pattern cannot hold (the "." MCP allows) become *.
func realNamePattern(tl *registry.Tool) string {
	real := toolname.MCPPrefix + tl.Group + "__" + tl.OriginalName
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '*'
	}, real)
}

// TestRulesOnRealNameDecideAliasedCalls is issue 22's case 8: "A
// permission rule written with a tool's real name
// (Deny(mcp__github__<59-character tool>)) parses but never matches the
// model-facing alias the tool is called by; the handler runs." For every
// aliased tool of the catalogs under testdata/, a Deny rule on the real
// name now refuses the call by the alias, direct and through
// defer_execute; an Allow rule on it runs the call under a deny default;
// a hook on it sees the call.
func TestRulesOnRealNameDecideAliasedCalls(t *testing.T) {
	c := newCounter()
	reg, aliased := aliasedTools(t, c)
	require.Greater(t, len(aliased), 100, "the catalogs should give many aliased tools")
	t.Logf("%d aliased tools", len(aliased))
	pol := deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("all", "Defer(mcp__*)")}}
	plan, err := pol.Plan(reg.Snapshot(), deferral.View{})
	require.NoError(t, err)
	var names []string
	for _, tl := range aliased {
		names = append(names, tl.Name)
	}
	s := newAliasSession(plan, names)
	ctx := context.Background()
	for _, tl := range aliased {
		rule := realNamePattern(tl)
		var evs events
		deny := mustNew(t, &execute.Options{Permissions: execute.MustPermissions("Allow("+tl.Name+")", "Deny("+rule+")"), Observer: execute.OnEvent(evs.add)})
		res := deny.Call(ctx, s, tl.Name, json.RawMessage(`{}`))
		assert.True(t, res.IsError, "%s (%s): %s", tl.Name, rule, res.Text)
		res = deny.Call(ctx, s, registry.DeferExecuteName, wrap(tl.Name, `{}`))
		assert.True(t, res.IsError, "%s via defer_execute: %s", tl.Name, res.Text)
		assert.Equal(t, 0, c.count(tl.Name), "%s ran despite Deny(%s)", tl.Name, rule)
		assert.Equal(t, []execute.EventKind{execute.EventDenied, execute.EventDenied}, evs.kinds(), tl.Name)

		allow := mustNew(t, &execute.Options{Default: execute.Deny, Permissions: execute.MustPermissions("Allow(" + rule + ")")})
		res = allow.Call(ctx, s, registry.DeferExecuteName, wrap(tl.Name, `{}`))
		assert.False(t, res.IsError, "%s: %s", tl.Name, res.Text)
		assert.Equal(t, 1, c.count(tl.Name))

		hooked := mustNew(t, &execute.Options{Hooks: []execute.Hook{{Name: "block", Pattern: rule, Before: func(context.Context, *execute.Call) execute.Verdict {
			return execute.Verdict{Block: true, Reason: "blocked by real name"}
		}}}})
		res = hooked.Call(ctx, s, tl.Name, json.RawMessage(`{}`))
		assert.Contains(t, res.Text, "blocked by real name", tl.Name)
		assert.Equal(t, 1, c.count(tl.Name))
	}
}

// newAliasSession is a session in which the given deferred tools are
// loaded.
func newAliasSession(plan *deferral.Plan, loaded []string) *testSession {
	return (&env{plan: plan}).session("alias", loaded...)
}
