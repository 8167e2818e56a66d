package shortname

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/registry"
)

func mcp(server, tool string) *registry.Tool {
	return &registry.Tool{Name: toolname.MCPName(server, tool), Group: server, Source: registry.SourceMCP, OriginalName: tool}
}

func TestOf(t *testing.T) {
	long := strings.Repeat("x", 70)
	for _, tc := range []struct {
		t    *registry.Tool
		want string
		ok   bool
	}{
		{mcp("github", "create_issue"), "create_issue", true},
		{mcp("docs", "读取文档"), strings.TrimPrefix(toolname.MCPName("docs", "读取文档"), "mcp__docs__"), true},
		{mcp("srv", long), strings.TrimPrefix(toolname.MCPName("srv", long), "mcp__srv__"), true},
		{mcp("evil", "mcp__github__create_issue"), "", false},
		{&registry.Tool{Name: "Read", Source: registry.SourceBuiltin}, "", false},
		{&registry.Tool{Name: "mcp__x__y", Source: registry.SourceBuiltin}, "", false},
		{nil, "", false},
	} {
		got, ok := Of(tc.t)
		assert.Equal(t, tc.ok, ok)
		assert.Equal(t, tc.want, got)
	}
}

func TestTable(t *testing.T) {
	gh, gl, solo, fsRead := mcp("github", "create_issue"), mcp("gitlab", "create_issue"), mcp("github", "get_me"), mcp("fs", "Read")
	read := &registry.Tool{Name: "Read", Source: registry.SourceBuiltin}
	tb := New([]*registry.Tool{gl, gh, solo, fsRead, read}, "tool_search")
	assert.Equal(t, "get_me", tb.Listed(solo))
	assert.Equal(t, gh.Name, tb.Listed(gh), "shared short name: listed in full")
	assert.Equal(t, fsRead.Name, tb.Listed(fsRead), "a built-in's full name: listed in full")
	assert.Equal(t, "Read", tb.Listed(read))
	assert.Equal(t, []string{gh.Name, gl.Name}, tb.Candidates("create_issue"), "sorted")
	assert.Equal(t, []string{solo.Name}, tb.Candidates("get_me"))
	assert.Empty(t, tb.Candidates("Read"), "a full name means itself")
	assert.Empty(t, tb.Candidates("nothing"))

	tools := map[string]*registry.Tool{gh.Name: gh, gl.Name: gl, solo.Name: solo, fsRead.Name: fsRead, read.Name: read}
	lookup := func(n string) (*registry.Tool, bool) { t, ok := tools[n]; return t, ok }
	names := []string{solo.Name, gl.Name, read.Name, gh.Name, fsRead.Name}
	assert.Equal(t, []string{gh.Name, gl.Name}, Match("create_issue", names, lookup))
	assert.Equal(t, []string{solo.Name}, Match("get_me", names, lookup))
	assert.Empty(t, Match("mcp__github__get_me", names, lookup), "an mcp__ name is never a short name")
	assert.Empty(t, Match("", names, lookup))
}
