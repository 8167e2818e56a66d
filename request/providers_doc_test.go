package request

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/textfmt"
	"github.com/toolshelf/toolshelf/internal/engine/wire"
	"github.com/toolshelf/toolshelf/internal/testkit/goldenfile"
	"github.com/toolshelf/toolshelf/registry"
)

// The generated parts of docs/providers.md sit between these markers.
const (
	rulesBegin = "<!-- rules:begin (TOOLSHELF_UPDATE=1 go test ./request -run TestProvidersDoc) -->\n"
	rulesEnd   = "<!-- rules:end -->\n"
	sizesBegin = "<!-- sizes:begin (TOOLSHELF_UPDATE=1 go test ./request -run TestProvidersDoc) -->\n"
	sizesEnd   = "<!-- sizes:end -->\n"
)

// TestProvidersDoc keeps docs/providers.md's rule table equal to the rule
// book (wire.Rules) and its size table equal to a measurement over the
// catalogs under testdata/; TOOLSHELF_UPDATE=1 rewrites both.
func TestProvidersDoc(t *testing.T) {
	var rules strings.Builder
	rules.WriteString("| provider | rule | field | limit | the provider's words | source | what toolshelf does |\n|---|---|---|---|---|---|---|\n")
	for _, p := range providers {
		for _, r := range wire.Rules(string(p)) {
			fmt.Fprintf(&rules, "| %s | `%s` | `%s` | %s | %s | [%s](%s) | %s |\n", r.Provider, r.ID, cell(r.Field), cell(r.Limit),
				cell(r.Words), sourceName(r.Source), r.Source, cell(r.Action))
		}
	}
	sizes := measureSizes(t)
	path := filepath.Join("..", "docs", "providers.md")
	doc, err := os.ReadFile(path)
	require.NoError(t, err)
	got := replaceBetween(t, string(doc), rulesBegin, rulesEnd, rules.String())
	got = replaceBetween(t, got, sizesBegin, sizesEnd, sizes)
	if goldenfile.Updating() {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	assert.Equal(t, got, string(doc), "docs/providers.md is out of date: TOOLSHELF_UPDATE=1 go test ./request -run TestProvidersDoc")
}

// measureSizes tabulates, for each server catalog and all of them
// together, what the OpenAI rules change: the index that would have
// ridden in tool_search's description, the description it has now, and
// how many resident descriptions are over 1,024 characters with nothing
// deferred.
func measureSizes(t *testing.T) string {
	var b strings.Builder
	b.WriteString("| catalog | tools | index, chars (all deferred) | `tool_search` description on OpenAI, chars | descriptions over 1,024 (none deferred) | longest, chars |\n|---|--:|--:|--:|--:|--:|\n")
	sets := [][]string{}
	for _, c := range serverCatalogs {
		sets = append(sets, []string{c})
	}
	sets = append(sets, serverCatalogs, quickstartCatalogs)
	for i, files := range sets {
		reg, _ := loadCatalogs(t, 0, files...)
		snap := reg.Snapshot()
		name := strings.TrimSuffix(filepath.Base(files[0]), ".tools.json")
		switch i {
		case len(sets) - 2:
			name = "all ten servers"
		case len(sets) - 1:
			name = "the quickstart's four servers"
		}
		s, err := NewSession(testConfig(snap, OpenAIChat, allDeferredPolicy(), nil))
		require.NoError(t, err)
		desc := 0
		for _, ft := range s.current().Tools() {
			if ft.Name == registry.ToolSearchName {
				desc = utf8.RuneCountInString(ft.Description)
			}
		}
		require.LessOrEqual(t, desc, maxDescription)
		over, longest := 0, 0
		// Responses caps descriptions as Chat does, and takes more than
		// Chat's 128 tools.
		s, err = NewSession(testConfig(snap, OpenAIResponses, &deferral.Policy{}, nil))
		require.NoError(t, err)
		for _, tl := range snap.Tools() {
			n := utf8.RuneCountInString(tl.Description)
			longest = max(longest, n)
			if n > maxDescription {
				over++
			}
		}
		assert.Len(t, s.current().shortened, over, "every over-cap resident description is shortened")
		fmt.Fprintf(&b, "| %s | %d | %s | %d | %d | %s |\n", name, len(snap.Tools()), textfmt.Thousands(utf8.RuneCountInString(s0Index(t, snap))), desc, over, textfmt.Thousands(longest))
	}
	return b.String()
}

// s0Index is the name index of a session over snap with everything deferred.
func s0Index(t *testing.T, snap *registry.Snapshot) string {
	s, err := NewSession(testConfig(snap, Anthropic, allDeferredPolicy(), nil))
	require.NoError(t, err)
	return s.current().Index()
}

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// sourceName is a short label for a source URL: its host and the last
// path elements.
func sourceName(u string) string {
	u = strings.TrimPrefix(u, "https://")
	parts := strings.Split(u, "/")
	switch {
	case parts[0] == "github.com" && len(parts) >= 5:
		return parts[1] + "/" + parts[2] + "#" + parts[len(parts)-1]
	case len(parts) > 2:
		return parts[0] + "/…/" + parts[len(parts)-1]
	}
	return u
}

func replaceBetween(t *testing.T, doc, begin, end, body string) string {
	i := strings.Index(doc, begin)
	j := strings.Index(doc, end)
	require.True(t, i >= 0 && j > i, "markers %q … %q", begin, end)
	return doc[:i+len(begin)] + body + doc[j:]
}
