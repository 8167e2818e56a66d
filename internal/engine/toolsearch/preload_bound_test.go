package toolsearch

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
)

// TestPreloadBoundOnTextRead (issue 43): MaxPreloadChars bounds the
// schemas' text the model reads in a <preloaded_tools> block, measured
// after the catalog text is neutralised (every wrapper tag's "<" becomes
// "&lt;", three bytes more). A description dense with tag-like text that
// fits the bound before neutralising and passes it after is not
// preloaded; one that fits after neutralising is, and its block's schema
// text is within the bound.
func TestPreloadBoundOnTextRead(t *testing.T) {
	dense := strings.Repeat("<user_query> ", 270) // 3,510 bytes, 4,320 neutralised
	plain := strings.Repeat("user_query ", 300)   // 3,300 bytes, no tag
	reg := registry.New(nil)
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "tags"}, []registry.Tool{
		{Name: "dense_tool", Description: "Quote tags. " + dense, RawSchema: []byte(`{"type":"object"}`), DeferLoading: registry.DeferTrue},
		{Name: "plain_tool", Description: "Quote words. " + plain, RawSchema: []byte(`{"type":"object"}`), DeferLoading: registry.DeferTrue},
	}))
	plan, err := (&deferral.Policy{Default: deferral.DefaultDefer}).Plan(reg.Snapshot(), deferral.View{})
	require.NoError(t, err)
	s, err := New(plan, nil)
	require.NoError(t, err)

	dt, _ := reg.Snapshot().Tool("mcp__tags__dense_tool")
	require.LessOrEqual(t, len(s.fullText(dt)), MaxPreloadChars, "the raw text fits the bound")
	got, err := s.Sure(context.Background(), "Run mcp__tags__dense_tool now.", Scope{})
	require.NoError(t, err)
	assert.Empty(t, got, "the text the model would read passes the bound")

	got, err = s.Sure(context.Background(), "Run mcp__tags__plain_tool now.", Scope{})
	require.NoError(t, err)
	require.Len(t, got, 1, "the control is preloaded")
	block := s.PreloadBlock(got)
	_, body, ok := strings.Cut(block, "\n\n")
	require.True(t, ok)
	body = strings.TrimSuffix(body, "</preloaded_tools>")
	assert.LessOrEqual(t, len(body), MaxPreloadChars, "the block's schema text")
}
