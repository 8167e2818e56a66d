package toolsearch

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/registry"
)

// listedName is one name of the index, the header it sits under, and the
// full name it stands for.
type listedName struct{ header, listed, full string }

// listedNames reads the index as tool_search's description tells the model
// to: a name indented under "mcp__<server>: ..." is mcp__<server>__<name>,
// unless it starts with "mcp__" (a full name); a name under no header is a
// full name.
func listedNames(t *testing.T, text string) []listedName {
	t.Helper()
	var out []listedName
	header := ""
	for _, l := range indexLines(t, text) {
		l = strings.TrimSuffix(l, "\n")
		switch {
		case strings.HasPrefix(l, "["):
		case strings.HasPrefix(l, "  "):
			require.NotEmpty(t, header, "an indented name under no header: %q", l)
			n := l[2:]
			full := n
			if !strings.HasPrefix(n, toolname.MCPPrefix) {
				full = toolname.MCPPrefix + header + "__" + n
			}
			out = append(out, listedName{header, n, full})
		case strings.HasPrefix(l, toolname.MCPPrefix) && strings.Contains(l, ":"):
			header = strings.TrimPrefix(l[:strings.Index(l, ":")], toolname.MCPPrefix)
		default:
			require.Empty(t, header, "a built-in name after a server's group: %q", l)
			out = append(out, listedName{"", l, l})
		}
	}
	return out
}

// collidingPlan has every way a short name can fail to name one tool: the
// same short name on two servers, a built-in's full name, an entry tool's
// name, and a tool named like another server's full name.
func collidingPlan(t *testing.T) *deferral.Plan {
	return mcpPlan(t, []string{"read_file"}, map[string][]string{
		"github": {"create_issue", "list_issues"},
		"gitlab": {"create_issue", "merge"},
		"fs":     {"read_file", "tool_search", "mcp__github__list_issues"},
	}, map[string]string{"fs": "文件服务端"})
}

func TestIndexShortNamesStayFullWhenAmbiguous(t *testing.T) {
	s, err := New(collidingPlan(t), nil)
	require.NoError(t, err)
	want := indexOpen + "\n" +
		"read_file\n" +
		"mcp__fs: 文件服务端\n" +
		"  mcp__fs__mcp__github__list_issues\n  mcp__fs__read_file\n  mcp__fs__tool_search\n" +
		"mcp__github:\n  list_issues\n  mcp__github__create_issue\n" +
		"mcp__gitlab:\n  mcp__gitlab__create_issue\n  merge\n" +
		indexClose
	assert.Equal(t, want, s.IndexText())
}

func TestShortNameResolution(t *testing.T) {
	s, err := New(collidingPlan(t), nil)
	require.NoError(t, err)
	for _, tc := range []struct {
		name, args string
		loads      []string // full names loaded, in order
		error      bool
		contains   []string
	}{
		{"unique short name", `{"tool_names":["merge"]}`, []string{"mcp__gitlab__merge"}, false, []string{"## mcp__gitlab__merge\n"}},
		{"select: form", `{"queries":["select:list_issues,merge"]}`, []string{"mcp__github__list_issues", "mcp__gitlab__merge"}, false, nil},
		{"short and full name load once", `{"tool_names":["merge","mcp__gitlab__merge"]}`, []string{"mcp__gitlab__merge"}, false, nil},
		{"a full name means itself", `{"tool_names":["read_file"]}`, []string{"read_file"}, false, []string{"## read_file\n"}},
		{"ambiguous", `{"tool_names":["create_issue"]}`, nil, true,
			[]string{`"create_issue" is the short name of 2 tools: mcp__github__create_issue, mcp__gitlab__create_issue.`, `{"tool_names": ["mcp__github__create_issue"]}`}},
		{"ambiguous next to a unique one", `{"tool_names":["create_issue","merge"]}`, []string{"mcp__gitlab__merge"}, false,
			[]string{"mcp__github__create_issue, mcp__gitlab__create_issue"}},
		{"an entry tool's name is nobody's short name", `{"tool_names":["tool_search"]}`, []string{"mcp__fs__tool_search"}, false,
			[]string{`No deferred tool is named "tool_search"`, "Closest matches:"}},
		{"an mcp__ name is only ever a full name", `{"tool_names":["mcp__github__list_issues"]}`, []string{"mcp__github__list_issues"}, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, loaded := s.Load(t.Context(), []byte(tc.args), Scope{})
			assert.Equal(t, tc.error, r.IsError, r.Text)
			for _, c := range tc.contains {
				assert.Contains(t, r.Text, c)
			}
			var got []string
			for _, l := range strings.Split(r.Text, "\n") {
				if n, ok := strings.CutPrefix(l, "## "); ok {
					got = append(got, n)
					assert.Contains(t, loaded, n, "%s is loaded under its full name", n)
				}
			}
			assert.Equal(t, tc.loads, got, "results show full names")
		})
	}
}

// TestIndexNamesResolveInSearch: every name the index lists, for each
// shared catalog and for all ten together, loads its own tool.
func TestIndexNamesResolveInSearch(t *testing.T) {
	paths := catalogPaths(t)
	sets := [][]string{paths}
	for _, p := range paths {
		sets = append(sets, []string{p})
	}
	for _, set := range sets {
		reg := registry.New(nil)
		for _, p := range set {
			c, err := registry.LoadCatalog(p)
			require.NoError(t, err)
			require.NoError(t, reg.Import(c))
		}
		plan, err := (&deferral.Policy{Default: deferral.DefaultDefer}).Plan(reg.Snapshot(), deferral.View{Tier: registry.TierFull})
		require.NoError(t, err)
		s, err := New(plan, nil)
		require.NoError(t, err)
		names := listedNames(t, s.IndexText())
		require.Len(t, names, len(plan.Deferred()), "%v: every deferred tool listed once", set)
		var full []string
		for _, n := range names {
			if n.listed == n.full {
				full = append(full, n.full)
				// Listed in full because its short name is not its
				// alone: the short name answers with the candidates.
				_, sn, ok := toolname.SplitMCP(n.full)
				require.True(t, ok)
				r := s.Call(t.Context(), []byte(`{"tool_names":["`+sn+`"]}`), Scope{Loaded: NewLoadedSet()})
				assert.True(t, r.IsError, r.Text)
				assert.Contains(t, r.Text, n.full, "the candidates are listed")
			}
			for _, args := range []string{`{"tool_names":["` + n.listed + `"]}`, `{"queries":["select:` + n.listed + `"]}`} {
				r := s.Call(t.Context(), []byte(args), Scope{Loaded: NewLoadedSet()})
				require.False(t, r.IsError, r.Text)
				require.True(t, strings.HasPrefix(r.Text, "Loaded 1 tool;"), "%s: %s", args, r.Text)
				assert.Contains(t, r.Text, "\n## "+n.full+"\n", args)
			}
		}
		if len(set) > 1 {
			// The one short name two shared catalogs have in common.
			assert.Equal(t, []string{"mcp__github__projects_list", "mcp__kubernetes__projects_list"}, full)
		} else {
			assert.Empty(t, full, "%v: one server's short names are its own", set)
		}
	}
}

// TestShortNamesSentence: the description says how a short name is called
// exactly when the index lists one, and stays within OpenAI's 1,024
// characters without the index.
func TestShortNamesSentence(t *testing.T) {
	with, err := New(collidingPlan(t), nil)
	require.NoError(t, err)
	assert.True(t, with.ShortNames())
	builtinOnly, err := New(mcpPlan(t, []string{"Read", "Write"}, nil, nil), nil)
	require.NoError(t, err)
	assert.False(t, builtinOnly.ShortNames())
	allFull, err := New(mcpPlan(t, nil, map[string][]string{"a": {"x"}, "b": {"x"}}, nil), nil)
	require.NoError(t, err)
	assert.False(t, allFull.ShortNames(), "every name listed in full")

	d := WithShortNames(SystemIndexDescription)
	assert.Contains(t, d, shortNamesSentence)
	assert.Equal(t, len(SystemIndexDescription)+len(shortNamesSentence), len(d))
	assert.LessOrEqual(t, len([]rune(d)), 1024)
	assert.Contains(t, WithShortNames(DescriptionTemplate), `"params": {...}}.`+shortNamesSentence+"\n")
}

// TestExplainShortName: Explain takes a name as the index lists it.
func TestExplainShortName(t *testing.T) {
	s, err := New(collidingPlan(t), nil)
	require.NoError(t, err)
	e, err := s.Explain(t.Context(), []string{"merge"}, "merge", Scope{})
	require.NoError(t, err)
	assert.Equal(t, "mcp__gitlab__merge", e.Tool)
	full, err := s.Explain(t.Context(), []string{"merge"}, "mcp__gitlab__merge", Scope{})
	require.NoError(t, err)
	assert.Equal(t, full, e)
	_, err = s.Explain(t.Context(), []string{"issue"}, "create_issue", Scope{})
	require.ErrorIs(t, err, ErrExplain)
	assert.ErrorContains(t, err, "mcp__github__create_issue, mcp__gitlab__create_issue")
	e, err = s.Explain(t.Context(), []string{"read"}, "read_file", Scope{})
	require.NoError(t, err)
	assert.Equal(t, "read_file", e.Tool, "a full name means itself")
}
