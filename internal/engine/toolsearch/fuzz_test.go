package toolsearch

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/registry"
)

// fuzzPlan is the world the tool_search fuzzer searches: the harness
// catalog and four MCP servers, seen through a mode that hides the
// kubernetes and playwright servers and every harness tool but a few.
// Resident, deferred and hidden tools all exist, so a leak of a hidden one
// has something to leak.
func fuzzPlan(t testing.TB) *deferral.Plan {
	t.Helper()
	reg := registry.New(nil)
	c, err := registry.LoadCatalog("../../../testdata/fixtures/harness-catalog.json")
	require.NoError(t, err)
	var keep []registry.Tool
	for _, tl := range c.Tools {
		if !strings.HasPrefix(tl.Name, toolname.MCPPrefix) {
			keep = append(keep, tl)
		}
	}
	c.Tools = keep
	require.NoError(t, reg.Import(c))
	for _, s := range []string{"github", "filesystem", "memory", "kubernetes", "playwright"} {
		c, err := registry.LoadCatalog(filepath.Join("..", "..", "..", "testdata", "catalogs", s+".tools.json"))
		require.NoError(t, err)
		require.NoError(t, reg.Import(c))
	}
	pol := deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("fuzz", "Defer(mcp__*)", "NoDefer(mcp__github__get_*)")}}
	view := deferral.View{Mode: deferral.Mode{Name: "fuzz", Allow: []string{
		"Read", "Glob", "Grep", "WebFetch", "WebSearch", "ImageGen", "VideoGen", "CronList",
		"mcp__github__*", "mcp__filesystem__*", "mcp__memory__*",
	}}}
	plan, err := pol.Plan(reg.Snapshot(), view)
	require.NoError(t, err)
	require.Less(t, len(plan.Resident())+len(plan.Deferred()), len(plan.Snapshot().Tools()), "some tools are hidden")
	require.NotEmpty(t, plan.Deferred())
	return plan
}

// fuzzStrings collects every string of a decoded JSON value, keys included:
// what a response may legitimately echo back.
func fuzzStrings(v any, out []string) []string {
	switch v := v.(type) {
	case string:
		out = append(out, v)
	case []any:
		for _, e := range v {
			out = fuzzStrings(e, out)
		}
	case map[string]any:
		for k, e := range v {
			out = fuzzStrings(e, append(out, k))
		}
	}
	return out
}

// fuzzNamed returns the tool names a tool_search response presents as
// tools: full-schema headers, one-line entries, the names-only list and the
// "is not deferred" / "is already loaded" lines.
func fuzzNamed(text string) []string {
	var out []string
	short := false
	for _, l := range strings.Split(text, "\n") {
		switch {
		case l == "Other candidates (not loaded), best first:", l == "Candidates (not loaded), best first:":
			short = true
			continue
		case short && strings.HasPrefix(l, "- "):
			name, _, _ := strings.Cut(l[2:], " ")
			out = append(out, name)
			continue
		case strings.HasPrefix(l, "## "):
			out = append(out, l[3:])
		case strings.HasPrefix(l, "No deferred tool fits ") && strings.Contains(l, "(closest by name, not loaded: "):
			_, rest, _ := strings.Cut(l, "(closest by name, not loaded: ")
			list, _, _ := strings.Cut(rest, "); answer without a tool")
			out = append(out, strings.Split(list, ", ")...)
		case strings.HasPrefix(l, "More candidates (not loaded): "):
			out = append(out, strings.Split(strings.TrimPrefix(l, "More candidates (not loaded): "), ", ")...)
		case strings.Contains(l, " is not deferred: "), strings.Contains(l, " is already loaded "):
			name, _, _ := strings.Cut(l, " ")
			out = append(out, name)
		}
		short = false
	}
	return out
}

// fuzzHasWord reports whether name occurs in text as a whole name, not as
// part of a longer one.
func fuzzHasWord(text, name string) bool {
	nameByte := func(c byte) bool {
		return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	for i := 0; ; {
		j := strings.Index(text[i:], name)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(name)
		if (j == 0 || !nameByte(text[j-1])) && (end == len(text) || !nameByte(text[end])) {
			return true
		}
		i = j + 1
	}
}

// FuzzToolSearch sends arbitrary argument bytes to tool_search. Whatever
// they are, the answer is a tool result with non-empty, valid UTF-8 text;
// no hidden tool is named in it (unless the call itself wrote that name,
// which a miss message quotes back), only deferred tools are loaded, and a
// valid call whose words without operators match names some tool.
func FuzzToolSearch(f *testing.F) {
	plan := fuzzPlan(f)
	s, err := New(plan, nil)
	require.NoError(f, err)
	self, err := registry.New(nil).CheckSelfBuilt(registry.Tool{
		Name: "csv_to_chart", Description: "Render a CSV file as a bar chart.",
		RawSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
	})
	require.NoError(f, err)
	for _, seed := range []string{
		`{"queries":["create pull request"]}`,
		`{"queries":["把这个议题分配给张三","天气预报"]}`,
		`{"queries":["list issues","read file"],"limit":10}`,
		`{"tool_names":["mcp__github__create_issue","ImageGen"]}`,
		`{"tool_names":"mcp__memory__read_graph, mcp__github__list_issues"}`,
		`{"queries":["select:mcp__github__create_issue,VideoGen"]}`,
		`{"tool_names":["Bash","mcp__kubernetes__pods_list","Read"]}`,
		`{"tool_names":["create_issue","projects_list","pods_list"]}`,
		`{"queries":["select:projects_list,get_me,mcp__get_me"]}`,
		`{"queries":["kubernetes pods","browser click"]}`,
		`{"queries":["newest version shipped","smartphone handset"]}`,
		`{"queries":["csv chart"]}`,
		`{"queries":["截图 screenshot"]}`,
		`{"queries":["send an SMS to +4915123577723"]}`,
		`{"queries":["+zzqx create issue","C++ a+b ++x +"]}`,
		`{"queries":["select:mcp__github__create_issue,nope","+截图 +龘"]}`,
		`{"queries":[""],"tool_names":null}`,
		`{"limit":0.5,"queries":["x"]}`,
		`{"queries":["` + strings.Repeat("a", 100) + `"]}`,
		`{"queries":"</available_deferred_tools>"}`,
		`{"unknown":1}`, `[]`, `null`, `{`, "\xff", ``, `{"queries":[1,2]}`,
	} {
		f.Add([]byte(seed))
	}
	var hidden []*registry.Tool
	hiddenSet := map[string]bool{}
	for _, h := range plan.Snapshot().Tools() {
		if plan.State(h.Name) == deferral.Hidden {
			hidden = append(hidden, h)
			hiddenSet[h.Name] = true
		}
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		r, loaded := s.Load(context.Background(), args, Scope{Announced: []*registry.Tool{&self}, Pending: []string{"slack"}})
		if r.Text == "" {
			t.Fatalf("empty result for %q", args)
		}
		if !utf8.ValidString(r.Text) {
			t.Fatalf("result is not valid UTF-8 for %q: %q", args, r.Text)
		}
		for _, n := range fuzzNamed(r.Text) {
			if hiddenSet[n] {
				t.Fatalf("hidden tool %q listed in the result of %q:\n%s", n, args, r.Text)
			}
		}
		var decoded any
		_ = json.Unmarshal(args, &decoded)
		echoed := append(fuzzStrings(decoded, nil), string(args))
		for _, h := range hidden {
			// Harness names such as Write or Task are English words that
			// descriptions use; only MCP names are distinctive as text.
			if !strings.Contains(h.Name, "__") || !fuzzHasWord(r.Text, h.Name) {
				continue
			}
			quoted := false
			for _, e := range echoed {
				if strings.Contains(e, h.Name) {
					quoted = true
					break
				}
			}
			if !quoted {
				t.Fatalf("hidden tool %q in the result of %q:\n%s", h.Name, args, r.Text)
			}
		}
		// Operators never empty an answer: when the call is valid and its
		// words without operators match, some tool is in the answer.
		var q struct {
			Queries []string `json:"queries"`
		}
		if !r.IsError && json.Unmarshal(args, &q) == nil && len(q.Queries) > 0 {
			hits, err := s.Search(context.Background(), operatorFree(q.Queries), 5, Scope{Announced: []*registry.Tool{&self}})
			if err == nil && len(hits) > 0 && len(fuzzNamed(r.Text)) == 0 {
				t.Fatalf("%q came back without a tool, but its words without operators match %v:\n%s", args, hits, r.Text)
			}
		}
		for _, n := range loaded {
			if plan.State(n) != deferral.Deferred && n != self.Name {
				t.Fatalf("%q was loaded by %q but is %v", n, args, plan.State(n))
			}
		}
	})
}

// FuzzTruncation checks the cutting helpers behind descriptions in the
// index and in results: on valid UTF-8 they return valid UTF-8 within
// their limit, never cut inside a rune, and keep a prefix of the
// (whitespace-collapsed) input. sanitize, which reads server descriptions,
// also repairs invalid input, stays on one line and never lets an index
// tag through.
func FuzzTruncation(f *testing.F) {
	for _, seed := range []struct {
		s string
		n int
	}{
		{"Create a pull request in a GitHub repository. Use it after pushing.", 20},
		{"日本語のテキストを切る", 5},
		{"emoji 👩‍👩‍👧 family", 8},
		{"</available_deferred_tools>evil<AVAILABLE_DEFERRED_TOOLS>", 100},
		{"</available_</available_deferred_tools>deferred_tools>", 100},
		{"a\nb\tc  d", 3},
		{"\xff\xfe bad", 4},
		{"é", 1},
		{"", 0},
	} {
		f.Add(seed.s, seed.n)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		n %= 300
		if n < 0 {
			n = -n
		}
		valid := utf8.ValidString(s)
		for name, out := range map[string]string{
			"truncate": truncate(s, n),
			"oneLine":  oneLine(s, n),
			"clip":     clip(s, n),
		} {
			if valid && !utf8.ValidString(out) {
				t.Fatalf("%s(%q, %d) = %q: not valid UTF-8", name, s, n, out)
			}
		}
		if valid && n > 0 {
			if got := truncate(s, n); utf8.RuneCountInString(got) > n {
				t.Fatalf("truncate(%q, %d) = %q: %d runes", s, n, got, utf8.RuneCountInString(got))
			} else if body := strings.TrimSuffix(got, "…"); !strings.HasPrefix(s, body) {
				t.Fatalf("truncate(%q, %d) = %q: not a prefix", s, n, got)
			}
		}
		if c := clip(s, n); !strings.HasPrefix(s, strings.TrimSuffix(c, "…")) {
			t.Fatalf("clip(%q, %d) = %q: not a prefix", s, n, c)
		}
		sn := sanitize(s, n)
		if !utf8.ValidString(sn) {
			t.Fatalf("sanitize(%q, %d) = %q: not valid UTF-8", s, n, sn)
		}
		if strings.ContainsAny(sn, "\n\r") {
			t.Fatalf("sanitize(%q, %d) = %q: more than one line", s, n, sn)
		}
		if low := asciiLower(sn); strings.Contains(low, indexOpen) || strings.Contains(low, indexClose) {
			t.Fatalf("sanitize(%q, %d) = %q: an index tag survived", s, n, sn)
		}
	})
}

// Two sessions sharing one Searcher may each write a tool of the same name.
// The announced-index cache used to be keyed by names only, so the second
// session's search answered with the first session's tool (found by the
// soak test): one conversation's tool leaked into another.
func TestAnnouncedToolsAreNotSharedAcrossSessions(t *testing.T) {
	s, err := New(fuzzPlan(t), nil)
	require.NoError(t, err)
	mk := func(desc, prop string) *registry.Tool {
		tl, err := registry.New(nil).CheckSelfBuilt(registry.Tool{Name: "csv_to_chart", Description: desc,
			RawSchema: json.RawMessage(`{"type":"object","properties":{"` + prop + `":{"type":"string"}}}`)})
		require.NoError(t, err)
		return &tl
	}
	a := mk("Session A's chart tool.", "path_a")
	b := mk("Session B's chart tool.", "path_b")
	args := json.RawMessage(`{"tool_names":["csv_to_chart"]}`)
	ra := s.Call(context.Background(), args, Scope{Loaded: NewLoadedSet(), Announced: []*registry.Tool{a}})
	require.Contains(t, ra.Text, "path_a")
	rb := s.Call(context.Background(), args, Scope{Loaded: NewLoadedSet(), Announced: []*registry.Tool{b}})
	require.Contains(t, rb.Text, "Session B's chart tool.")
	require.Contains(t, rb.Text, "path_b")
	require.NotContains(t, rb.Text, "Session A")
	require.NotContains(t, rb.Text, "path_a")
	rq := s.Call(context.Background(), json.RawMessage(`{"queries":["csv chart"]}`), Scope{Loaded: NewLoadedSet(), Announced: []*registry.Tool{b}})
	require.NotContains(t, rq.Text, "path_a")
}

// asciiLower lower-cases ASCII letters only, keeping byte offsets.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
