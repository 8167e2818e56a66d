package budget

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/toolshelf/toolshelf/registry"
)

// This file gives the external tests access to what is not part of the API:
// test-only helpers and aliases of unexported functions.

var (
	ToolChars = toolChars
	Encodings = encodings
)

// CountFrozen is countFrozenTokens, the cached count behind Measure.
func (c *Counter) CountFrozen(kind Kind, text string) Tokens { return c.countFrozenTokens(kind, text) }

// Loaded reports whether the counter has loaded its vocabulary (it does on
// the first exact count, never before).
func (c *Counter) Loaded() bool { return c.loaded.Load() }

// CacheStats returns how many frozen counts were served from the cache and
// how many had to be tokenized.
func (c *Counter) CacheStats() (hits, misses int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.misses
}

// ToolSections describes a tool as it costs tokens: its name and
// description (prose) and its model-facing schema (JSON), as frozen sections
// sharing the tool's name, so that an estimate rates each at its own rate.
// Description and schema runes add up to the tool's size in the savings
// account; the name is paid on top.
func ToolSections(t *registry.Tool, class Class) []Section {
	return []Section{
		{Name: t.Name, Class: class, Kind: KindProse, Text: t.Name, Frozen: true},
		{Name: t.Name, Class: class, Kind: KindProse, Text: t.Description, Frozen: true},
		{Name: t.Name, Class: class, Kind: KindJSON, Text: string(t.ModelSchema()), Frozen: true},
	}
}

// TaskTable formats comparisons one task a line — never only the mean,
// which hides the task that loses tokens — followed by the totals.
func TaskTable(rows []TaskComparison) string {
	var b strings.Builder
	b.WriteString("| task | always-on: prefix × requests → input | deferred: prefix × requests → input | delta |\n")
	b.WriteString("|---|--:|--:|--:|\n")
	var a, d TaskCost
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s × %d → %s | %s × %d → %s | %s |\n", r.Task,
			r.AlwaysOn.Prefix, r.AlwaysOn.Requests, r.AlwaysOn.Input,
			r.Deferred.Prefix, r.Deferred.Requests, r.Deferred.Input, signedPct(r.DeltaShare))
		a.Input, d.Input = a.Input.Add(r.AlwaysOn.Input), d.Input.Add(r.Deferred.Input)
		a.Requests, d.Requests = a.Requests+r.AlwaysOn.Requests, d.Requests+r.Deferred.Requests
	}
	if len(rows) > 1 {
		fmt.Fprintf(&b, "| all %d tasks | %d requests → %s | %d requests → %s | %s |\n", len(rows),
			a.Requests, a.Input, d.Requests, d.Input, signedPct(ratio(d.Input.N-a.Input.N, a.Input.N)))
	}
	return b.String()
}

func signedPct(f float64) string {
	s := strconv.FormatFloat(f*100, 'f', 1, 64) + "%"
	if f > 0 {
		s = "+" + s
	}
	return s
}

// CountTools is countTools, the per-kind sums behind NewAccount.
var CountTools = countTools

// The encodings, defaults and sentinels that are not part of the API (a
// harness names an encoding by its string), under their test names.
const (
	O200kBase         = o200kBase
	Cl100kBase        = cl100kBase
	EncodingEstimate  = encodingEstimate
	ClaudeEstimate    = claudeEstimate
	DefaultCacheBytes = defaultCacheBytes
)

var (
	ParseEncoding      = parseEncoding
	EncodingForModel   = encodingForModel
	ErrUnknownEncoding = errUnknownEncoding
	ErrNoPlan          = errNoPlan
	Compare            = compare
	ParseTranscript    = parseTranscript
)

// Per-task cost: used by the tests that replay recorded tasks (bc025).
type (
	Transcript     = transcript
	TaskCost       = taskCost
	TaskComparison = taskComparison
)

// TaskCost is taskCost, the replay of a recorded task.
func (c *Counter) TaskCost(prefix []Section, tr *Transcript) TaskCost { return c.taskCost(prefix, tr) }

// Free, Over and Legend are the bar's unexported figures.
func (b Bar) Free() (int, bool) { return b.free() }
func (b Bar) Over() bool        { return b.over() }
func (b Bar) Legend() string    { return b.legend() }

// ResidentDelta and Estimate are the ledger's counterfactual, as the
// account gave it (a.Tokens.NetSavingAfterEntry, a.Tokens.Estimate).
func (l *Ledger) ResidentDelta() int { return l.delta }
func (l *Ledger) Estimate() bool     { return l.estimate }

// Tally is the turn-by-turn measurement behind the scale benchmark's
// accounting.
type Tally = tally

func (c *Counter) Tally() *Tally           { return c.newTally() }
func (t *tally) Add(sections ...Section)   { t.add(sections...) }
func (t *tally) Total() Size               { return t.total() }
func (t *tally) Measurement() *Measurement { return t.measurement() }
func (s Size) Add(o Size) Size             { return s.add(o) }

// CacheBytes is cacheBytes: what the counter's cache holds, and its bound.
