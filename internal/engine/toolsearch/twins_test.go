package toolsearch

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/registry"
)

// TestNearTwinsTogether: the twin of the best hit comes up beside it from
// below the other matches, and the answer says what tells them apart.
func TestNearTwinsTogether(t *testing.T) {
	tools := []*registry.Tool{
		{Name: "calculate_bmi", Description: "Calculate the body mass index from weight and height in metric units."},
		{Name: "calculate_BMI", Description: "Calculate the body mass index from weight and height in imperial units (pounds, inches)."},
	}
	for _, d := range []string{"Convert height between units.", "Record a weight measurement.", "Calculate a loan payment.",
		"Calculate the area of a circle.", "Track body temperature.", "Estimate calories from weight and activity."} {
		tools = append(tools, &registry.Tool{Name: "tool_" + strings.Fields(d)[1], Description: d + " Weight, height, body, mass, index, calculate."})
	}
	s := searcherOver(t, tools)
	hits, heads, err := s.search(context.Background(), []string{"calculate body mass index metric"}, 3, Scope{})
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(hits), 2)
	assert.Equal(t, "calculate_bmi", hits[0].Name)
	assert.Equal(t, "calculate_BMI", hits[1].Name)
	assert.GreaterOrEqual(t, heads, 2, "both twins get their schema")
	r := call(t, s, `{"queries": ["calculate body mass index metric"], "limit": 3}`, Scope{Loaded: NewLoadedSet()})
	assert.Contains(t, r.Text, "Near twins, told apart by: calculate_bmi (metric); calculate_BMI (imperial, pounds, inches).", r.Text)
}

func TestTwinsRule(t *testing.T) {
	a := wordsOf(&registry.Tool{Name: "mcp__slack__SLACK_INVITE_USER_TO_CHANNEL", Description: "Invite a user to a Slack channel."})
	b := wordsOf(&registry.Tool{Name: "mcp__slack__SLACK_INVITE_USERS_TO_A_SLACK_CHANNEL", Description: "Invite one or more users to a Slack channel by their ids."})
	c := wordsOf(&registry.Tool{Name: "mcp__slack__SLACK_ARCHIVE_CHANNEL", Description: "Archive a Slack channel."})
	assert.True(t, twins(a, b))
	assert.False(t, twins(a, c))
	assert.Equal(t, []string{"more", "ids"}, distinct(b, a))
}

// searcherOver builds a searcher whose deferred tools are tools (built-in
// group, empty object schemas).
func searcherOver(t *testing.T, tools []*registry.Tool) *Searcher {
	t.Helper()
	var rows []map[string]any
	for _, tl := range tools {
		rows = append(rows, map[string]any{"name": tl.Name, "description": tl.Description, "inputSchema": map[string]any{"type": "object"}})
	}
	raw, err := json.Marshal(map[string]any{"catalog": "built-in", "tools": rows})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "c.json")
	require.NoError(t, os.WriteFile(path, raw, 0o644))
	plan, err := PlanCatalogs(path)
	require.NoError(t, err)
	s, err := New(plan, nil)
	require.NoError(t, err)
	return s
}
