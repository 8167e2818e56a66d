package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/internal/engine/advice"
)

func TestBudgetAdvice(t *testing.T) {
	usage := writeFile(t, "usage.json", `{"Read": 40, "Bash": 35, "VideoGen": 1}`)
	code, out, errOut := runCLI("budget", "--json", "--encoding", "estimate", "--catalog", harness,
		"--usage", usage, "--turns", "50", "--round-trip", "14000")
	require.Equal(t, exitOK, code, errOut)
	var r struct {
		Advice []advice.Advice `json:"advice"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	require.Len(t, r.Advice, 58, "every visible tool is ranked")
	byName := map[string]advice.Advice{}
	for i, a := range r.Advice {
		byName[a.Name] = a
		if i > 0 {
			assert.GreaterOrEqual(t, r.Advice[i-1].Saving, a.Saving, "ranked by saving")
		}
	}
	assert.Equal(t, "VideoGen", r.Advice[0].Name, "the 18,671-char tool used once leads")
	assert.True(t, byName["VideoGen"].Defer)
	assert.False(t, byName["Read"].Defer, "used on 40 of 50 requests with a 14,000-token round trip: keep it")
	assert.Equal(t, 40, byName["Read"].Uses)
	assert.Equal(t, 0, byName["Glob"].Uses, "names not in the file count as unused")

	code, text, errOut := runCLI("budget", "--encoding", "estimate", "--catalog", harness, "--usage", usage, "--turns", "50", "--round-trip", "14000")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, text, "defer VideoGen")
	assert.Contains(t, text, "more worth deferring")
	assert.Regexp(t, `keep resident: [1-9]\d* tools`, text)
	assert.LessOrEqual(t, strings.Count(text, "  defer "), adviceLines)
}

func TestBudgetAdviceBadInput(t *testing.T) {
	unknown := writeFile(t, "unknown.json", `{"Raed": 3}`)
	tooMany := writeFile(t, "many.json", `{"Read": 60}`)
	negative := writeFile(t, "neg.json", `{"Read": -1}`)
	notJSON := writeFile(t, "broken.json", `["Read"]`)
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"usage without turns", []string{"--usage", unknown}, []string{"--turns"}},
		{"turns without usage", []string{"--turns", "5"}, []string{"--usage"}},
		{"negative round trip", []string{"--usage", unknown, "--turns", "5", "--round-trip", "-1"}, []string{"--round-trip -1"}},
		{"unknown tool", []string{"--usage", unknown, "--turns", "50"}, []string{unknown, `"Raed"`}},
		{"more uses than turns", []string{"--usage", tooMany, "--turns", "50"}, []string{tooMany, "--turns 50"}},
		{"negative count", []string{"--usage", negative, "--turns", "50"}, []string{negative, `"Read"`}},
		{"not an object", []string{"--usage", notJSON, "--turns", "50"}, []string{notJSON, "JSON object"}},
		{"missing file", []string{"--usage", "nope.json", "--turns", "50"}, []string{"nope.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"budget", "--encoding", "estimate", "--catalog", harness}, tt.args...)
			code, out, errOut := runCLI(args...)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, out)
			assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
			for _, w := range tt.want {
				assert.Contains(t, errOut, w)
			}
		})
	}
}
