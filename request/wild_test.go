package request

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/internal/testkit/longtest"
	"github.com/toolshelf/toolshelf/registry"
)

// wildCatalogs reads the captured tools/list of every real MCP server in
// testdata/wild (see its README), requiring that no tool is refused.
func wildCatalogs(t *testing.T) []*registry.Catalog {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "wild", "*.json"))
	require.NoError(t, err)
	var cats []*registry.Catalog
	for _, f := range files {
		if filepath.Base(f) == "servers.json" {
			continue
		}
		c, err := registry.LoadCatalog(f)
		require.NoError(t, err)
		require.Empty(t, c.Rejected, "%s: no tool of a real server is refused", f)
		require.NotEmpty(t, c.Tools, f)
		cats = append(cats, c)
	}
	require.GreaterOrEqual(t, len(cats), 30, "the corpus holds at least 30 servers")
	return cats
}

// wildRegistry imports every wild catalog strictly into one registry, each
// server's group deferring by default.
func wildRegistry(t *testing.T, cats []*registry.Catalog) *registry.Registry {
	t.Helper()
	reg := registry.New(&registry.Options{StrictImport: true})
	for _, c := range cats {
		require.NoError(t, reg.AddGroup(registry.Group{Name: c.Server, Description: c.Description, DefaultDefer: registry.DeferTrue}))
		require.NoError(t, reg.Import(c), c.Server)
		imported, warnings := 0, 0
		for _, tl := range reg.Snapshot().Tools() {
			if tl.Group == c.Server {
				imported++
				warnings += len(tl.Warnings)
			}
		}
		assert.Equal(t, len(c.Tools), imported, c.Server)
		assert.Equal(t, catalogWarnings(c), warnings, c.Server)
	}
	return reg
}

// Every tool of every wild server is sent, resident, to each provider (one
// provider per server in a short run) in a body that passes the rule book;
// the schema in the body is the one the server wrote, unless a rule in the
// book says otherwise.
func TestWildCorpusBodiesPassTheRuleBook(t *testing.T) {
	cats := wildCatalogs(t)
	reg := wildRegistry(t, cats)
	assert.Empty(t, reg.Rejected())
	snap := reg.Snapshot()
	for pi, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			for ci, c := range cats {
				// Each session indexes the rest of the corpus for
				// tool_search (~0.2 s): a short run takes each server on
				// one provider in turn, the long run on all three.
				if !longtest.On() && ci%len(providers) != pi {
					continue
				}
				policy := &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("wild", "NoDefer(mcp__"+c.Server+"__*)")}}
				s, err := NewSession(testConfig(snap, p, policy, nil))
				require.NoError(t, err, c.Server)
				b, err := s.BuildRequest(Turn{Messages: []Message{userMsg("hello")}})
				require.NoError(t, err, c.Server)
				if !checkRules(t, p, b) {
					t.Fatalf("%s: %s body breaks the rule book", c.Server, p)
				}
				for _, tool := range c.Tools {
					assert.Contains(t, string(b), string(json.RawMessage(mustTool(t, snap, toolname.MCPName(c.Server, tool.Name)).ModelSchema())), "%s: the schema is sent", tool.Name)
				}
			}
		})
	}
}

func mustTool(t *testing.T, s *registry.Snapshot, name string) *registry.Tool {
	t.Helper()
	tool, ok := s.Tool(name)
	require.True(t, ok, name)
	return tool
}

// With the whole corpus deferred, tool_search answers: a body passes the
// rule book, and a search names tools.
func TestWildCorpusSearchAnswers(t *testing.T) {
	reg := wildRegistry(t, wildCatalogs(t))
	for _, p := range providers {
		s, err := NewSession(testConfig(reg.Snapshot(), p, &deferral.Policy{}, nil))
		require.NoError(t, err)
		b, err := s.BuildRequest(Turn{Messages: []Message{userMsg("hello")}})
		require.NoError(t, err)
		checkRules(t, p, b)
		for _, q := range []string{"read a pdf file", "take a screenshot of a web page", "list kubernetes pods", "search the web"} {
			args, _ := json.Marshal(map[string][]string{"queries": {q}})
			res := s.Call(t.Context(), "tool_search", args)
			require.False(t, res.IsError, "%s: %s", q, res.Text)
			assert.True(t, strings.Contains(res.Text, toolname.MCPPrefix), "%s: the answer names a tool: %.300s", q, res.Text)
		}
	}
}

// wildDocBegin and wildDocEnd delimit the generated corpus table of
// docs/reliability.md.
const (
	wildDocBegin = "<!-- wild corpus: written by request/wild_test.go (TOOLSHELF_UPDATE=1) -->"
	wildDocEnd   = "<!-- end of wild corpus -->"
)

// wildTable renders the corpus: per server its tools and warnings, then
// the warnings by keyword.
func wildTable(t *testing.T, cats []*registry.Catalog) string {
	var b strings.Builder
	total, tools, withWarn := 0, 0, 0
	byKeyword := map[string]int{}
	b.WriteString("| server | package | version | tools | refused | warnings |\n|---|---|---|---|---|---|\n")
	for _, c := range cats {
		meta := wildMeta(t, c.Server)
		n := catalogWarnings(c)
		fmt.Fprintf(&b, "| %s | `%s` | %s | %d | %d | %d |\n", c.Server, meta.Package, meta.Version, len(c.Tools), len(c.Rejected), n)
		total += n
		tools += len(c.Tools)
		for _, tool := range c.Tools {
			if len(tool.Warnings) > 0 {
				withWarn++
			}
			for _, w := range tool.Warnings {
				byKeyword[w.Keyword]++
			}
		}
	}
	fmt.Fprintf(&b, "| **%d servers** | | | **%d** | **0** | **%d** |\n\n", len(cats), tools, total)
	fmt.Fprintf(&b, "%d of the %d tools carry a warning.", withWarn, tools)
	if len(byKeyword) > 0 {
		b.WriteString(" By keyword:")
		for i, k := range slices.Sorted(maps.Keys(byKeyword)) {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " `%s` %d", cmp.Or(k, "(whole schema)"), byKeyword[k])
		}
		b.WriteString(".")
	}
	b.WriteString("\n")
	return b.String()
}

// wildMeta reads the package and version a capture file records.
func wildMeta(t *testing.T, server string) struct{ Package, Version string } {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "wild", "*.json"))
	for _, f := range files {
		if filepath.Base(f) == "servers.json" {
			continue
		}
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		var m struct{ Package, Version, Server string }
		require.NoError(t, json.Unmarshal(raw, &m))
		if m.Server == server {
			return struct{ Package, Version string }{m.Package, m.Version}
		}
	}
	return struct{ Package, Version string }{}
}

// TestWildDoc keeps docs/reliability.md's corpus table in step with
// testdata/wild; TOOLSHELF_UPDATE=1 rewrites it.
func TestWildDoc(t *testing.T) {
	cats := wildCatalogs(t)
	want := wildTable(t, cats)
	path := filepath.Join("..", "docs", "reliability.md")
	doc, err := os.ReadFile(path)
	require.NoError(t, err)
	before, rest, ok := strings.Cut(string(doc), wildDocBegin+"\n")
	require.True(t, ok, "docs/reliability.md lacks %q", wildDocBegin)
	_, after, ok := strings.Cut(rest, wildDocEnd)
	require.True(t, ok, "docs/reliability.md lacks %q", wildDocEnd)
	if os.Getenv("TOOLSHELF_UPDATE") == "1" {
		require.NoError(t, os.WriteFile(path, []byte(before+wildDocBegin+"\n"+want+wildDocEnd+after), 0o644))
		return
	}
	got, _, _ := strings.Cut(rest, wildDocEnd)
	assert.Equal(t, want, got, "docs/reliability.md's wild corpus table is stale: TOOLSHELF_UPDATE=1 go test ./request -run TestWildDoc")
}

// catalogWarnings counts the warnings of a catalog's tools.
func catalogWarnings(c *registry.Catalog) int {
	n := 0
	for _, t := range c.Tools {
		n += len(t.Warnings)
	}
	return n
}
