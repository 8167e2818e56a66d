package execute

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/registry"
)

// realCatalogs returns every test catalog's tools: 10 MCP servers and the
// 58-tool harness fixture (in two registries: the fixture reuses some MCP
// names).
func realCatalogs(t testing.TB) []*registry.Tool {
	t.Helper()
	files, err := filepath.Glob("../testdata/catalogs/*.tools.json")
	require.NoError(t, err)
	require.Len(t, files, 10)
	var out []*registry.Tool
	for _, group := range [][]string{files, {"../testdata/fixtures/harness-catalog.json"}} {
		reg := registry.New(nil)
		for _, f := range group {
			c, err := registry.LoadCatalog(f)
			require.NoError(t, err, f)
			require.NoError(t, reg.Import(c), f)
		}
		out = append(out, reg.Snapshot().Tools()...)
	}
	return out
}

// Every real schema resolves, and its example call passes its own schema
// (so the "correct call" we show the model is not itself wrong).
func TestRealSchemasResolve(t *testing.T) {
	tools := realCatalogs(t)
	require.Len(t, tools, 293+58)
	for _, tl := range tools {
		v := newValidator(tl)
		require.NoError(t, v.err, tl.Name)
		require.NotNil(t, v.relaxed, tl.Name)
		var obj map[string]any
		require.NoError(t, json.Unmarshal([]byte(v.example), &obj), tl.Name)
		for _, vi := range v.check(obj, nil) {
			// Placeholders cannot satisfy formats, patterns or minimums;
			// they must at least have the right keys and types.
			assert.NotContains(t, vi.Message, "required", "%s: example %s: %s", tl.Name, v.example, vi)
			assert.NotContains(t, vi.Message, "type:", "%s: example %s: %s", tl.Name, v.example, vi)
			assert.NotContains(t, vi.Message, "unknown property", "%s: example %s: %s", tl.Name, v.example, vi)
		}
	}
}

// Each tool's schema is resolved once per dispatcher, however many calls
// and goroutines; an identical re-registered tool reuses the work.
func TestValidatorCache(t *testing.T) {
	d, err := New(nil)
	require.NoError(t, err)
	tools := realCatalogs(t)[:40]
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, tl := range tools {
				d.cache.get(tl)
			}
		}()
	}
	wg.Wait()
	assert.Len(t, d.cache.byPtr, 40)
	assert.Len(t, d.cache.byKey, 40)
	first := d.cache.get(tools[0])
	for range 3 {
		assert.Same(t, first, d.cache.get(tools[0]))
	}
	clone := *tools[0]
	assert.Same(t, first, d.cache.get(&clone), "same name and schema: same validator")

	// The bound empties the cache instead of growing it.
	small, err := New(&Options{MaxSchemas: 5})
	require.NoError(t, err)
	for _, tl := range tools {
		small.cache.get(tl)
	}
	assert.LessOrEqual(t, len(small.cache.byPtr), 5)
}

func TestClosest(t *testing.T) {
	visible := []string{"Bash", "Edit", "Glob", "Grep", "Read", "WebFetch", "WebSearch", "Write", "mcp__github__get_me", "mcp__github__search_issues", "mcp__github__search_code", "tool_search", "defer_execute"}
	tests := []struct {
		name string
		want []string
	}{
		{"Raed", []string{"Read"}},
		{"read", []string{"Read"}},
		{"web_search", []string{"WebSearch", "WebFetch"}},
		{"search_issues", []string{"mcp__github__search_issues"}},
		{"github_get_me", []string{"mcp__github__get_me"}},
		{"zzzzzzzz", nil},
		{"", nil},
		{strings.Repeat("x", 10000), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := closest(tt.name, visible, func(n string) bool { return n == "tool_search" || n == "defer_execute" })
			if tt.want == nil {
				assert.Empty(t, got)
				return
			}
			assert.Equal(t, tt.want, got[:len(tt.want)])
		})
	}
}

func TestScanBounds(t *testing.T) {
	tests := []struct {
		in   string
		ok   bool
		note string
	}{
		{`{"a":[[[1]]]}`, true, "depth 4"},
		{`{"a":[[[[1]]]]}`, false, "depth 5"},
		{`{"a":"[[[[[[[[[["}`, true, "brackets in strings do not count"},
		{`{"a":"\"[[[[[[[[[["}`, true, "escaped quotes stay in the string"},
		{`{"a":"\\"}`, true, "escaped backslash ends"},
		{strings.Repeat("[", 1<<16), false, "bounded before parsing"},
	}
	for _, tt := range tests {
		t.Run(tt.note, func(t *testing.T) {
			got := scanBounds([]byte(tt.in), 1<<20, 4)
			assert.Equal(t, tt.ok, got == "", got)
		})
	}
	assert.NotEmpty(t, scanBounds([]byte(`{"a":"12345"}`), 10, 4))
}

func TestTokens(t *testing.T) {
	assert.Equal(t, []string{"mcp", "github", "get", "me"}, tokens("mcp__github__get_me"))
	assert.Equal(t, []string{"web", "fetch"}, tokens("WebFetch"))
	assert.Equal(t, []string{"browser", "take", "screenshot"}, tokens("browser-takeScreenshot"))
}

// A panicking Session is contained like a panicking handler.
type panicSession struct{}

func (panicSession) ID() string                                 { return "p" }
func (panicSession) Lookup(string) (*registry.Tool, bool, bool) { panic("broken session") }
func (panicSession) Loaded(string) bool                         { return false }
func (panicSession) MarkLoaded(string)                          {}
func (panicSession) VisibleNames() []string                     { return nil }

func TestNeverPanics(t *testing.T) {
	d, err := New(nil)
	require.NoError(t, err)
	var r registry.Result
	require.NotPanics(t, func() { r = d.Call(context.Background(), panicSession{}, "Read", json.RawMessage(`{}`)) })
	assert.True(t, r.IsError)
	require.NotPanics(t, func() { r = d.Call(context.Background(), nil, "Read", nil) })
	assert.True(t, r.IsError)
}
