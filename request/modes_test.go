package request

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tiktoken-go/tokenizer"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
	"github.com/toolshelf/toolshelf/internal/engine/textfmt"
	"github.com/toolshelf/toolshelf/internal/testkit/goldenfile"
)

// upFront returns the part of a native-mode body the provider puts in
// front of the model before any search: Anthropic leaves deferred tools
// out entirely, the Responses API shows a deferred function's name and
// description and defers its parameters. Other bodies are returned whole.
func upFront(t *testing.T, p Provider, mode ToolSearch, body []byte) []byte {
	t.Helper()
	if !mode.native() {
		return body
	}
	var req map[string]any
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	require.NoError(t, d.Decode(&req))
	var kept []any
	for _, raw := range req["tools"].([]any) {
		tool := raw.(map[string]any)
		if tool["defer_loading"] == true {
			if p == Anthropic {
				continue
			}
			delete(tool, "parameters")
		}
		kept = append(kept, tool)
	}
	req["tools"] = kept
	out, err := jsonx.Marshal(req)
	require.NoError(t, err)
	return out
}

// TestModeSizes measures the first request of a session over the github
// catalog (every tool deferred, or every tool resident for the baseline)
// in each tool search mode and provider, and keeps the table in
// testdata/modes.md, which docs/integration.md must hold
// verbatim (TOOLSHELF_UPDATE=1 rewrites the file; copy it into the README).
func TestModeSizes(t *testing.T) {
	// o200k_base directly: package budget measures sessions from above and
	// cannot be imported here.
	counter, err := tokenizer.Get(tokenizer.O200kBase)
	require.NoError(t, err)
	reg, _ := loadCatalogs(t, 0, githubFile)
	snap := reg.Snapshot()
	rows := []struct {
		mode     string
		p        Provider
		search   ToolSearch
		policy   *deferral.Policy
		tools    string
		load     string
		identity string
	}{
		{"all resident (baseline)", OpenAIChat, Portable, nil, "every tool, full schema", "—", "yes"},
		{"all resident (baseline)", OpenAIResponses, Portable, nil, "every tool, full schema", "—", "yes"},
		{"all resident (baseline)", Anthropic, Portable, nil, "every tool, full schema", "—", "yes"},
		{"portable", OpenAIChat, Portable, allDeferred(), "resident tools + `tool_search` (name index) + `defer_execute`", "`tool_search` returns the schema; called via `defer_execute`", "yes"},
		{"portable", OpenAIResponses, Portable, allDeferred(), "resident tools + `tool_search` (name index) + `defer_execute`", "`tool_search` returns the schema; called via `defer_execute`", "yes"},
		{"portable", Anthropic, Portable, allDeferred(), "resident tools + `tool_search` (name index) + `defer_execute`", "`tool_search` returns the schema; called via `defer_execute`", "yes"},
		{"native", OpenAIResponses, Native, allDeferred(), "resident tools + `{\"type\":\"tool_search\"}` + every deferred function with schema and `defer_loading`", "hosted search; the found function is called by its name", "yes (found tools are appended at the end of the context by the API)"},
		{"native", Anthropic, Native, allDeferred(), "resident tools + `tool_search_tool_bm25` (breakpoint) + every deferred tool with schema and `defer_loading`", "server-side BM25 search (`tool_reference`); the found tool is called by its name", "yes (deferred tools are expanded in the conversation, not in the prefix)"},
		{"native", OpenAIChat, Native, allDeferred(), "— (no native search: `NewSession` error)", "—", "—"},
	}
	var b strings.Builder
	b.WriteString("| mode | provider | in `tools[]` | how a deferred tool gets loaded | prefix byte-identical | request bytes | o200k tokens | up front, bytes / o200k tokens |\n")
	b.WriteString("|---|---|---|---|---|--:|--:|--:|\n")
	for _, r := range rows {
		cfg := Config{Snapshot: snap, Policy: r.policy, Provider: r.p, Model: testModel(r.p), ToolSearch: r.search,
			Extra: tokenExtra(r.p, "4096")}
		s, err := NewSession(cfg)
		if r.p == OpenAIChat && r.search == Native {
			require.ErrorIs(t, err, ErrConfig)
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | — | — | — |\n", r.mode, r.p, r.tools, r.load, r.identity)
			continue
		}
		require.NoError(t, err)
		if r.policy != nil {
			require.Len(t, s.current().Plan().Resident(), 0, "every github tool deferred")
		}
		body, err := s.BuildRequest(Turn{Messages: []Message{userMsg("List the open issues of toolshelf/toolshelf.")}})
		require.NoError(t, err)
		checkRules(t, r.p, body)
		toks, err := counter.Count(string(body))
		require.NoError(t, err)
		front := upFront(t, r.p, r.search, body)
		ftoks, err := counter.Count(string(front))
		require.NoError(t, err)
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s / %s |\n", r.mode, r.p, r.tools, r.load, r.identity,
			textfmt.Thousands(len(body)), textfmt.Thousands(toks), textfmt.Thousands(len(front)), textfmt.Thousands(ftoks))
	}
	golden := filepath.Join("testdata", "modes.md")
	if goldenfile.Updating() {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(golden, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run TOOLSHELF_UPDATE=1 go test ./request -run TestModeSizes")
	assert.Equal(t, string(want), b.String(), "figures changed: rerun with TOOLSHELF_UPDATE=1 and copy request/testdata/modes.md into docs/integration.md")
	readme, err := os.ReadFile(filepath.Join("..", "docs", "integration.md"))
	require.NoError(t, err)
	assert.Contains(t, string(readme), b.String(), "docs/integration.md holds request/testdata/modes.md verbatim")
	t.Log("\n" + b.String())
}
