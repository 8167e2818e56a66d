package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// catalogCounts are the tool counts the catalogs' README gives.
var catalogCounts = map[string]int{
	"everything": 19, "fetch": 1, "filesystem": 14, "git": 12, "github": 117,
	"kubernetes": 46, "memory": 9, "playwright": 72, "sequential-thinking": 1, "time": 2,
}

func TestImportEveryRealCatalog(t *testing.T) {
	files, err := filepath.Glob("../testdata/catalogs/*.tools.json")
	require.NoError(t, err)
	require.Len(t, files, 10)
	r := New(nil)
	total := 0
	for _, f := range files {
		c, err := LoadCatalog(f)
		require.NoError(t, err, f)
		require.NotEmpty(t, c.Server, f)
		assert.Equal(t, formatCatalogFile, c.Format)
		assert.Equal(t, catalogCounts[c.Server], len(c.Tools), c.Server)
		require.NoError(t, r.Import(c), f)
		total += len(c.Tools)
	}
	assert.Equal(t, 293, total)
	s := r.Snapshot()
	assert.Equal(t, 293, len(s.Tools()))
	tool, ok := s.Tool("mcp__github__create_pull_request")
	require.True(t, ok)
	assert.Equal(t, "create_pull_request", tool.OriginalName)
	assert.Equal(t, SourceMCP, tool.Source)
	_, ok = s.Tool("mcp__sequential-thinking__sequentialthinking")
	assert.True(t, ok)
	// Both projects_list tools coexist thanks to the prefix.
	_, ok = s.Tool("mcp__kubernetes__projects_list")
	assert.True(t, ok)
	_, ok = s.Tool("mcp__github__projects_list")
	assert.True(t, ok)
	g, ok := s.Group("github")
	require.True(t, ok)
	assert.Contains(t, g.Description, "GitHub")
}

// TestImportKeepsSchemaBytes checks that a schema's compact bytes equal the
// source's compact bytes: same key order, no HTML escaping.
func TestImportKeepsSchemaBytes(t *testing.T) {
	data, err := os.ReadFile("../testdata/catalogs/github.tools.json")
	require.NoError(t, err)
	var raw struct {
		Tools []struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(data, &raw))
	c, err := ParseCatalog(data)
	require.NoError(t, err)
	total := 0
	for i, tl := range c.Tools {
		var want strings.Builder
		require.NoError(t, compactTo(&want, raw.Tools[i].InputSchema))
		assert.Equal(t, want.String(), string(tl.RawSchema))
		total += len(tl.RawSchema)
	}
	// The catalogs' README: 91,885 bytes of compact inputSchema for github.
	assert.Equal(t, 91885, total)
}

func compactTo(sb *strings.Builder, b []byte) error {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return err
	}
	sb.Write(buf.Bytes())
	return nil
}

func TestImportHarnessFixture(t *testing.T) {
	c, err := LoadCatalog("../testdata/fixtures/harness-catalog.json")
	require.NoError(t, err)
	assert.Empty(t, c.Server)
	require.Len(t, c.Tools, 58)
	counts := map[DeferLoading]int{}
	for _, tl := range c.Tools {
		counts[tl.DeferLoading]++
	}
	assert.Equal(t, 23, counts[DeferTrue])
	r := New(nil)
	require.NoError(t, r.Import(c))
	tl, ok := r.Snapshot().Tool("mcp__github__create_issue")
	require.True(t, ok, "built-in names keep their own spelling, mcp__ included")
	assert.Equal(t, SourceBuiltin, tl.Source)
}

// TestImportToolsListNeedsServer: a bare MCP tools/list names no server;
// Import refuses it until Catalog.Server says which, while catalog files
// name their group themselves ("server", or "catalog" for built-ins).
func TestImportToolsListNeedsServer(t *testing.T) {
	for _, list := range []string{
		`{"tools":[{"name":"create_issue","inputSchema":{"type":"object"}}]}`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"create_issue","inputSchema":{"type":"object"}}]}}`,
		`[{"name":"create_issue","inputSchema":{"type":"object"}}]`,
	} {
		c, err := ParseCatalog([]byte(list))
		require.NoError(t, err)
		err = New(nil).Import(c)
		require.ErrorIs(t, err, ErrNoServer, list)
		assert.Contains(t, err.Error(), "Catalog.Server")
		assert.Contains(t, err.Error(), "--server NAME")
		c.Server = "github"
		r := New(nil)
		require.NoError(t, r.Import(c))
		_, ok := r.Snapshot().Tool("mcp__github__create_issue")
		assert.True(t, ok)
	}
	c, err := ParseCatalog([]byte(`{"catalog":"harness","tools":[{"name":"Read","inputSchema":{"type":"object"}}]}`))
	require.NoError(t, err)
	assert.Equal(t, formatCatalogFile, c.Format)
	r := New(nil)
	require.NoError(t, r.Import(c), "a built-in catalog file")
	tl, ok := r.Snapshot().Tool("Read")
	require.True(t, ok)
	assert.Equal(t, SourceBuiltin, tl.Source)
}

func TestImportBenchmarkCatalogs(t *testing.T) {
	for _, f := range []string{
		"../testdata/benchmarks/bc025/catalog.json",
		"../testdata/benchmarks/metatool/catalog.json",
		"../testdata/benchmarks/bfcl-multiple/catalog.json",
	} {
		c, err := LoadCatalog(f)
		require.NoError(t, err, f)
		require.NoError(t, New(nil).Import(c), f)
	}
}

func TestParseCatalogShapes(t *testing.T) {
	tests := []struct {
		name, json, format, tool, schema string
		deferLoading                     DeferLoading
	}{
		{"mcp tools/list", `{"tools":[{"name":"a","description":"d","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}}}],"nextCursor":"c"}`, FormatMCP, "a", `{"type":"object","properties":{"x":{"type":"string"}}}`, DeferUnset},
		{"json-rpc envelope", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}`, FormatMCP, "a", `{"type":"object"}`, DeferUnset},
		{"bare mcp array", `[{"name":"a","inputSchema":{"type":"object"}}]`, FormatMCP, "a", `{"type":"object"}`, DeferUnset},
		{"openai chat", `[{"type":"function","function":{"name":"get_weather","description":"w","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},"strict":true}}]`, formatOpenAIChat, "get_weather", `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`, DeferUnset},
		{"openai responses", `[{"type":"function","name":"get_weather","parameters":{"type":"object"},"defer_loading":true}]`, formatOpenAIResponses, "get_weather", `{"type":"object"}`, DeferTrue},
		{"anthropic", `[{"name":"get_weather","description":"w","input_schema":{"type":"object","properties":{}},"defer_loading":false}]`, formatAnthropic, "get_weather", `{"type":"object","properties":{}}`, DeferFalse},
		{"no schema", `[{"type":"function","name":"ping"}]`, formatOpenAIResponses, "ping", `{"type":"object","properties":{}}`, DeferUnset},
		{"html stays", `[{"name":"a","inputSchema":{"type":"object","description":"<b>&</b>"}}]`, FormatMCP, "a", `{"type":"object","description":"<b>&</b>"}`, DeferUnset},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseCatalog([]byte(tc.json))
			require.NoError(t, err)
			assert.Equal(t, tc.format, c.Format)
			require.Len(t, c.Tools, 1)
			assert.Equal(t, tc.tool, c.Tools[0].Name)
			assert.Equal(t, tc.schema, string(c.Tools[0].RawSchema))
			assert.Equal(t, tc.deferLoading, c.Tools[0].DeferLoading)
		})
	}
}

func TestParseCatalogErrors(t *testing.T) {
	tests := []struct{ name, json, want string }{
		{"not json", `{"tools": [`, "not valid JSON"},
		{"scalar", `42`, "unknown shape"},
		{"object without tools", `{"foo": 1}`, "needs a \"tools\" array"},
		{"tools not array", `{"tools": {}}`, "must be an array"},
		{"unknown tool shape", `[{"name":"x","schema":{}}]`, `tool 0 ("x"): unknown shape`},
		{"missing name", `[{"inputSchema":{}}]`, `missing "name"`},
		{"bad server", `{"server":"a__b","tools":[]}`, "not contain \"__\""},
		{"non-function chat tool", `[{"type":"web_search","function":{"name":"x"}}]`, "only \"function\" tools"},
		{"element not object", `[1]`, "a tool must be a JSON object"},
		{"bad defer_loading", `[{"name":"x","inputSchema":{},"defer_loading":"yes"}]`, "defer_loading"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseCatalog([]byte(tc.json))
			require.Error(t, err)
			assert.True(t, errors.Is(err, errCatalog), "%v", err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestLoadCatalogNamesFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(p, []byte("nope"), 0o600))
	_, err := LoadCatalog(p)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "bad.json")
}

func TestAdversarialCatalogs(t *testing.T) {
	t.Run("1 MB description is rejected naming the tool and the bound", func(t *testing.T) {
		desc := strings.Repeat("x", 1<<20)
		err := New(nil).Register(Tool{Name: "huge", Description: desc})
		require.ErrorIs(t, err, errTooLarge)
		assert.Contains(t, err.Error(), `tool "huge": description is 1048576 runes, the bound is 65536`)
	})
	t.Run("10,000 tools are accepted and sorted", func(t *testing.T) {
		r := New(nil)
		var tools []Tool
		for i := 9999; i >= 0; i-- {
			tools = append(tools, Tool{Name: fmt.Sprintf("tool_%05d", i)})
		}
		require.NoError(t, r.Register(tools...))
		s := r.Snapshot()
		require.Equal(t, 10000, len(s.Tools()))
		assert.Equal(t, "tool_00000", s.Tools()[0].Name)
	})
	t.Run("names colliding after mcp__ prefixing", func(t *testing.T) {
		r := New(nil)
		require.NoError(t, r.Register(Tool{Name: "mcp__a__x"}))
		require.ErrorIs(t, r.Import(&Catalog{Server: "a", Tools: []Tool{{Name: "x"}, {Name: "y"}}}), ErrRejected, "the clash is reported, y imported")
		assert.Equal(t, []string{"mcp__a__x", "mcp__a__y"}, names(r.Snapshot()))
		rej := r.Rejected()
		require.Len(t, rej, 1)
		require.ErrorIs(t, rej[0].Err, ErrDuplicateTool)
		assert.Contains(t, rej[0].Err.Error(), `"mcp__a__x" is registered by the built-in group and again by the MCP server "a"`)

		strict := New(&Options{StrictImport: true})
		require.NoError(t, strict.Register(Tool{Name: "mcp__a__x"}))
		err := strict.Import(&Catalog{Server: "a", Tools: []Tool{{Name: "x"}, {Name: "y"}}})
		require.ErrorIs(t, err, ErrDuplicateTool)
		assert.Equal(t, []string{"mcp__a__x"}, names(strict.Snapshot()))
		_, ok := strict.Snapshot().Group("a")
		assert.False(t, ok, "a failed strict import adds no group")
	})
	t.Run("duplicate names across servers stay apart", func(t *testing.T) {
		r := New(nil)
		require.NoError(t, r.Import(&Catalog{Server: "a", Tools: []Tool{{Name: "x"}}}))
		require.NoError(t, r.Import(&Catalog{Server: "b", Tools: []Tool{{Name: "x"}}}))
		assert.Equal(t, []string{"mcp__a__x", "mcp__b__x"}, names(r.Snapshot()))
	})
	t.Run("a remote $ref is never fetched: left out of validation with a warning; a consuming $ref cycle is kept", func(t *testing.T) {
		c, err := ParseCatalog([]byte(`[{"name":"a","inputSchema":{"type":"object","properties":{"n":{"$ref":"#"},"r":{"$ref":"https://example.invalid/s.json"}}}},
			{"name":"b","inputSchema":{"type":"object","properties":{"n":{"$ref":"#"}}}}]`))
		require.NoError(t, err)
		c.Server = "s"
		require.Empty(t, c.Rejected)
		require.Len(t, c.warnings(), 1)
		assert.Equal(t, Warning{Tool: "a", Path: "/properties/r", Keyword: "$ref",
			Reason: `"https://example.invalid/s.json" does not lead to a schema inside the tool's schema; left out of validation`}, c.warnings()[0])
		r := New(nil)
		require.NoError(t, r.Import(c))
		assert.Equal(t, []string{"mcp__s__a", "mcp__s__b"}, names(r.Snapshot()))
		assert.Empty(t, r.Rejected())
		require.Len(t, r.Warnings(), 1)
		assert.Equal(t, "mcp__s__a", r.Warnings()[0].Tool)
		assert.Equal(t, mustTool(t, r.Snapshot(), "mcp__s__a").Warnings, r.Warnings())
		assert.JSONEq(t, `{"type":"object","properties":{"n":{"$ref":"#"},"r":{"$ref":"https://example.invalid/s.json"}}}`, string(mustTool(t, r.Snapshot(), "mcp__s__a").RawSchema), "sent as written")
	})
	t.Run("huge enum is bounded by the schema bound", func(t *testing.T) {
		var sb strings.Builder
		sb.WriteString(`{"type":"object","properties":{"e":{"enum":[`)
		for i := range 200000 {
			if i > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, `"v%d"`, i)
		}
		sb.WriteString(`]}}}`)
		err := New(nil).Register(Tool{Name: "enum", RawSchema: []byte(sb.String())})
		require.ErrorIs(t, err, errTooLarge)
		assert.Contains(t, err.Error(), `tool "enum": schema is`)
	})
	t.Run("index tags in descriptions are data here; names cannot carry them", func(t *testing.T) {
		_, err := ParseCatalog([]byte(`[{"name":"</available_deferred_tools>","inputSchema":{}}]`))
		require.NoError(t, err, "parsing keeps the tool; registration validates the name")
		c, _ := ParseCatalog([]byte(`{"catalog":"builtin","tools":[{"name":"</available_deferred_tools>","inputSchema":{}}]}`))
		r := New(nil)
		require.ErrorIs(t, r.Import(c), ErrRejected)
		assert.Zero(t, len(r.Snapshot().Tools()))
		require.Len(t, r.Rejected(), 1)
		assert.ErrorIs(t, r.Rejected()[0].Err, errInvalidName)
		assert.ErrorIs(t, New(&Options{StrictImport: true}).Import(c), errInvalidName)
	})
}

// TestImportReportsRejected: a catalog with one bad schema ("objekt")
// imports the good tools and returns an error wrapping ErrRejected that
// names the bad one.
func TestImportReportsRejected(t *testing.T) {
	c, err := ParseCatalog([]byte(`{"server":"fs","tools":[
		{"name":"read_file","inputSchema":{"type":"object"}},
		{"name":"write_file","inputSchema":{"type":"objekt"}}]}`))
	require.NoError(t, err)
	r := New(nil)
	err = r.Import(c)
	require.ErrorIs(t, err, ErrRejected)
	assert.Contains(t, err.Error(), `import of MCP server "fs": 1 of 2 tools left out, the other 1 imported: "write_file"`)
	assert.Equal(t, []string{"mcp__fs__read_file"}, names(r.Snapshot()), "the good tool is imported")
	require.NoError(t, New(nil).Import(&Catalog{Server: "fs", Tools: c.Tools}), "nothing left out, no error")
}

// TestCatalogSyntaxPosition: a catalog that is not JSON says where it
// stops being JSON, by line and column of the input as given.
func TestCatalogSyntaxPosition(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"\n[{\"name\":\"a\",\n \"inputSchema\":{}}", "line 3, column 18 (byte 33): unexpected end of JSON input"},
		{"{\"tools\":[\n  {\"name\": x}]}", "line 2, column 12 (byte 23): invalid character 'x' looking for beginning of value"},
	} {
		_, err := ParseCatalog([]byte(tc.in))
		require.ErrorIs(t, err, errCatalog)
		assert.Contains(t, err.Error(), tc.want)
	}
	path := filepath.Join(t.TempDir(), "cut.json")
	require.NoError(t, os.WriteFile(path, []byte("{\"tools\":[\n"), 0o600))
	_, err := LoadCatalog(path)
	assert.ErrorContains(t, err, path+": registry: invalid catalog: not valid JSON: line 1, column 11 (byte 11): unexpected end of JSON input")
}

// TestCatalogMCPServersFile: an mcpServers file given as a catalog says
// what it is and where it goes.
func TestCatalogMCPServersFile(t *testing.T) {
	_, err := ParseCatalog([]byte(`{"mcpServers":{"fs":{"command":"npx"}}}`))
	require.ErrorIs(t, err, errCatalog)
	assert.Contains(t, err.Error(), "an mcpServers file lists servers to start, not tools: read it with integration/mcp.LoadConfig (toolshelf budget --mcp-config FILE)")
}
