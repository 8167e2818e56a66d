package scale

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/request"
)

// The full run is
//
//	go test ./internal/testkit/scale -run TestScale -scale -sessions 10000 -turns 50 -timeout 60m
//
// Without -scale the test plays a small load that checks the same
// invariants in about a second.
var (
	full     = flag.Bool("scale", false, "run the scale benchmark at the sizes of -sessions and -turns")
	sessions = flag.Int("sessions", 1000, "live sessions (the issue's full run: 10000)")
	turns    = flag.Int("turns", 50, "turns per session (the issue's full run: 50)")
	tools    = flag.Int("tools", 1000, "tools in the registry")
	workers  = flag.Int("workers", 0, "goroutines playing turns at once (0: GOMAXPROCS)")
	late     = flag.Int("late", 10, "one session in this many receives a late server (0: none)")
	report   = flag.String("report", "", "write the report to this file too")
	provider = flag.String("provider", "", "the sessions' provider (\"\": anthropic; gemini)")
)

// TestScaleGemini plays the small load with Gemini sessions: the same
// invariants hold for the fourth encoder.
func TestScaleGemini(t *testing.T) {
	if testing.Short() || *full {
		t.Skip("the small load; a full run takes -provider gemini")
	}
	td, err := TestdataDir()
	require.NoError(t, err)
	o := Options{Testdata: td, Sessions: 20, Turns: 12, Tools: *tools, SelfBuiltEvery: 10, LateServerEvery: *late, CounterBytes: 256 << 10, Provider: request.Gemini}
	rep, err := Run(t.Context(), o)
	require.NoError(t, err)
	t.Log("\n" + rep.String())
	assert.Equal(t, int64(1), rep.SharedIndexBuilds)
	assert.Equal(t, 1, rep.Prefixes)
	assert.Positive(t, rep.Calls)
	assert.Equal(t, rep.LateSearches, rep.LateFound)
	assert.Equal(t, rep.LateFound, rep.LateCalls)
	assert.Equal(t, rep.SelfSearches, rep.SelfFound)
}

func TestScale(t *testing.T) {
	td, err := TestdataDir()
	require.NoError(t, err)
	o := Options{Testdata: td, Sessions: 40, Turns: 12, Tools: *tools, SelfBuiltEvery: 10, LateServerEvery: *late, CounterBytes: 256 << 10,
		Provider: request.Provider(*provider)}
	if *full {
		o.Sessions, o.Turns, o.CounterBytes, o.Workers = *sessions, *turns, 4<<20, *workers
	} else if testing.Short() {
		t.Skip("the scale benchmark's small load runs without -short")
	}
	rep, err := Run(t.Context(), o)
	require.NoError(t, err)
	t.Log("\n" + rep.String())
	if *report != "" {
		require.NoError(t, os.WriteFile(filepath.Clean(*report), []byte(rep.String()), 0o644))
	}

	assert.Equal(t, int64(1), rep.SharedIndexBuilds, "the shared index is built once, never by a call")
	var lateSessions int64
	for i := range o.Sessions * min(1, o.LateServerEvery) {
		if i%o.LateServerEvery == o.LateServerEvery/2 && i%o.SelfBuiltEvery != 0 {
			lateSessions++
		}
	}
	assert.Equal(t, lateSessions, rep.LateSessions, "one session in LateServerEvery received the late server")
	assert.Equal(t, int64((o.Sessions+o.SelfBuiltEvery-1)/o.SelfBuiltEvery)+lateSessions, rep.OverlayBuilds, "one overlay per session that wrote a tool or received the late server")
	assert.Equal(t, lateSessions > 0, rep.LateSearches > 0)
	assert.Equal(t, rep.LateSearches, rep.LateFound, "a search for the late server's tool finds it first")
	assert.Equal(t, rep.LateFound, rep.LateCalls, "and defer_execute runs it")
	assert.Equal(t, 1, rep.Prefixes, "equal but distinct &search.Options{} share one prefix")
	assert.LessOrEqual(t, rep.CounterMax, o.CounterBytes, "the token cache stays within its bound")
	assert.Positive(t, rep.Calls)
	assert.Equal(t, rep.SelfSearches, rep.SelfFound, "a session's search for its own tool finds it first")
	if *full {
		// The targets, on the machine of the run.
		assert.LessOrEqual(t, rep.RetainedPerSession/rep.HistoryPerSession, 1.3, "retained heap per session over its encoded history")
		t.Logf("p99 %s against a target of 2ms", rep.P99)
	}
}
