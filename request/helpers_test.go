package request

import (
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/internal/engine/wire"
	"github.com/toolshelf/toolshelf/registry"
)

var providers = []Provider{OpenAIChat, OpenAIResponses, Anthropic, Gemini}

// loadCatalogs reads catalogs from testdata/, shuffles each catalog's tools
// and the catalogs' order with seed (0 keeps file order), and imports them.
func loadCatalogs(t testing.TB, seed uint64, files ...string) (*registry.Registry, []*registry.Catalog) {
	t.Helper()
	var cats []*registry.Catalog
	for _, f := range files {
		c, err := registry.LoadCatalog(filepath.Join("..", "testdata", f))
		require.NoError(t, err)
		if c.Server == "" && len(files) > 1 {
			// The harness catalog carries a few mcp__ tools of its own;
			// next to the real servers' catalogs they would collide.
			var keep []registry.Tool
			for _, tool := range c.Tools {
				if !strings.HasPrefix(tool.Name, toolname.MCPPrefix) {
					keep = append(keep, tool)
				}
			}
			c.Tools = keep
		}
		cats = append(cats, c)
	}
	order := append([]*registry.Catalog(nil), cats...)
	if seed != 0 {
		r := rand.New(rand.NewPCG(seed, seed))
		r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for i, c := range order {
			cc := *c
			cc.Tools = append([]registry.Tool(nil), c.Tools...)
			r.Shuffle(len(cc.Tools), func(i, j int) { cc.Tools[i], cc.Tools[j] = cc.Tools[j], cc.Tools[i] })
			order[i] = &cc
		}
	}
	reg := registry.New(nil)
	for _, c := range order {
		require.NoError(t, reg.Import(c))
	}
	return reg, cats
}

const harnessFile = "fixtures/harness-catalog.json"
const githubFile = "catalogs/github.tools.json"

// githubPolicy defers the github server except its get_* readers.
func githubPolicy() *deferral.Policy {
	return &deferral.Policy{Layers: []deferral.Layer{
		deferral.MustLayer("project", "Defer(mcp__github__*)", "NoDefer(mcp__github__get_*)"),
	}}
}

func testConfig(snap *registry.Snapshot, p Provider, policy *deferral.Policy, cache *Cache) Config {
	return Config{
		ID:          "s1",
		Snapshot:    snap,
		Policy:      policy,
		SessionVars: map[string]string{"cwd": "/home/dev/repo", "os": "linux", "date": "2025-06-01"},
		Provider:    p,
		Model:       testModel(p),
		System:      "You are a coding agent. Use tools when they help.",
		SystemItems: []string{"<skill name=\"review\">Review diffs carefully.</skill>", "<skill name=\"commit\">Write small commits.</skill>"},
		Extra:       testExtra(p),
		Cache:       cache,
	}
}

// testModel is the model of test sessions: for the Responses API one
// documented for its hosted tool search (gpt-5.4 and later), so that
// native-mode tests can use the same config.
func testModel(p Provider) string {
	if p == OpenAIResponses {
		return "gpt-5.4"
	}
	return "test-model"
}

// testExtra are the extra fields of test sessions: the output bound,
// stream and temperature; Gemini takes the bound and the temperature in
// generationConfig (it streams by its URL).
func testExtra(p Provider) map[string]json.RawMessage {
	if p == Gemini {
		return map[string]json.RawMessage{"generationConfig": json.RawMessage(`{"maxOutputTokens": 4096, "temperature": 0}`)}
	}
	return map[string]json.RawMessage{maxTokensField(p): json.RawMessage(`4096`), "stream": json.RawMessage(`true`), "temperature": json.RawMessage(` 0 `)}
}

// maxTokensField is the provider's name for the output bound: the
// Responses API calls it max_output_tokens.
func maxTokensField(p Provider) string {
	if p == OpenAIResponses {
		return "max_output_tokens"
	}
	return "max_tokens"
}

// tokenExtra is Config.Extra with the output bound n under the provider's
// own name: Gemini has none at the top level (generationConfig).
func tokenExtra(p Provider, n string) map[string]json.RawMessage {
	if p == Gemini {
		return map[string]json.RawMessage{"generationConfig": json.RawMessage(`{"maxOutputTokens":` + n + `}`)}
	}
	return map[string]json.RawMessage{maxTokensField(p): json.RawMessage(n)}
}

func userMsg(text string) Message { return Message{Role: RoleUser, Text: text} }

func call(id, name, args string) Message {
	return Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: id, Name: name, Arguments: json.RawMessage(args)}}}
}

func result(id, text string) Message { return Message{Role: RoleTool, CallID: id, Text: text} }

// script is a short conversation covering every message shape.
func script() []Turn {
	return []Turn{
		{Messages: []Message{userMsg("Find open issues about <flaky> tests & fix them")},
			Inject: []string{"<system-reminder>The working tree is clean.</system-reminder>"}},
		{Messages: []Message{
			{Role: RoleAssistant, Text: "Searching for the tools first.", ToolCalls: []ToolCall{{ID: "call_1", Name: "tool_search", Arguments: json.RawMessage(`{ "queries": ["list issues"] }`)}}},
			result("call_1", "Loaded: mcp__github__list_issues"),
		}},
		{Messages: []Message{
			{Role: RoleAssistant, ToolCalls: []ToolCall{
				{ID: "call_2", Name: "defer_execute", Arguments: json.RawMessage(`{"tool_name":"mcp__github__list_issues","params":{"owner":"o","repo":"r"}}`)},
				{ID: "call_3", Name: "Read", Arguments: nil},
			}},
			result("call_2", "[]"),
			{Role: RoleTool, CallID: "call_3", Text: "no such file", IsError: true},
			userMsg("Also check the README\u2028please."),
		}},
		{Messages: []Message{{Role: RoleAssistant, Text: "No open issues. Done."}, userMsg("thanks")}},
	}
}

// checkRules is requesttest.CheckProviderRules for request's in-package
// tests, which cannot import the kit (it imports request): both report
// wire.Check's violations.
func checkRules(t testing.TB, p Provider, body []byte) bool {
	t.Helper()
	vs := wire.Check(string(p), body)
	for _, v := range vs {
		t.Errorf("%s body breaks the provider's rule %s", p, v)
	}
	return len(vs) == 0
}

// assertStablePrefix is requesttest.AssertStablePrefix for the in-package
// tests: both report wire.StablePrefix's problems.
func assertStablePrefix(t testing.TB, bodies ...[]byte) bool {
	t.Helper()
	problems := wire.StablePrefix(bodies...)
	for _, p := range problems {
		t.Errorf("%s", p)
	}
	return len(problems) == 0
}
