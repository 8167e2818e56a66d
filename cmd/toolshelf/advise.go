package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/toolshelf/toolshelf/budget"
	"github.com/toolshelf/toolshelf/internal/engine/advice"
	"github.com/toolshelf/toolshelf/internal/engine/textfmt"
	"github.com/toolshelf/toolshelf/registry"
)

// advise reads usage counts ({"name": calls}) and ranks the visible tools
// by what deferring each saves (advice.Advise). A name the catalogs do not
// hold is an error: a typo would otherwise count as "never used" and
// advise deferring a tool the harness calls every turn.
func advise(path string, snap *registry.Snapshot, visible []*registry.Tool, c *budget.Counter, turns, roundTrip int) ([]advice.Advice, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--usage: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var raw map[string]json.Number
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s: want a JSON object of tool names to call counts, e.g. {\"Read\": 40}: %v", path, err)
	}
	names := make([]string, 0, len(raw))
	for n := range raw {
		names = append(names, n)
	}
	sort.Strings(names) // the first bad name is the same on every run
	usage := make(map[string]int, len(raw))
	for _, n := range names {
		v, err := raw[n].Int64()
		if err != nil || v < 0 {
			return nil, fmt.Errorf("%s: %q: count %s is not a whole number ≥ 0", path, n, raw[n])
		}
		if v > int64(turns) {
			return nil, fmt.Errorf("%s: %q was called %d times, more than --turns %d requests", path, n, v, turns)
		}
		if _, ok := snap.Tool(n); !ok {
			return nil, fmt.Errorf("%s: %q is not a tool of the catalogs (use exposed names, e.g. mcp__github__get_me)", path, n)
		}
		usage[n] = int(v)
	}
	adv, err := advice.Advise(visible, usage, &advice.Options{Counter: c, Turns: turns, RoundTrip: roundTrip})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return adv, nil
}

// adviceLines bounds the text ranking; --json has every tool.
const adviceLines = 10

// writeAdvice prints the ranking: the tools most worth deferring first
// (at most adviceLines), then how many more are worth it and how many are
// better kept resident.
func writeAdvice(w io.Writer, adv []advice.Advice) {
	if adv == nil {
		return
	}
	shown, more, keep := 0, 0, 0
	fmt.Fprintf(w, "defer advice (tokens over the observed requests: resident cost − deferred cost):\n")
	for _, a := range adv {
		switch {
		case !a.Defer:
			keep++
			continue
		case shown == adviceLines:
			more++
			continue
		}
		shown++
		fmt.Fprintf(w, "  defer %-32s %3d uses  saves %s tokens (%s resident → %s deferred)\n", a.Name, a.Uses,
			budget.Tokens{N: a.Saving, Estimate: a.Tokens.Estimate}, textfmt.Thousands(a.Resident), textfmt.Thousands(a.Deferred))
	}
	if more > 0 {
		fmt.Fprintf(w, "  … %d more worth deferring (--json lists every tool)\n", more)
	}
	fmt.Fprintf(w, "  keep resident: %d tools (deferring them would cost more than it saves)\n", keep)
}
