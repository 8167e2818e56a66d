// Package advice is the advisor of toolshelf budget (cmd/toolshelf): it
// ranks tools to defer by size and usage ([Advise]) and finds text repeated
// across tool definitions ([Boilerplate], [RepeatedFields]), costed with a
// [budget.Counter]. It uses only budget's public API.
package advice

import (
	"cmp"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"unicode/utf8"

	"github.com/toolshelf/toolshelf/budget"
	"github.com/toolshelf/toolshelf/registry"
)

// Options configures [Advise]. Nil means defaults.
type Options struct {
	// Counter counts tokens; nil estimates (and marks it).
	Counter *budget.Counter
	// Turns is the number of model requests the usage counts were observed
	// over: a resident tool is paid on each. It must be at least the
	// largest usage count.
	Turns int
	// RoundTrip is what one extra model request costs in tokens (the
	// prefill of the context it re-reads). Zero counts only the search
	// call and the loaded schema, a lower bound on the cost of deferral.
	RoundTrip int
}

// ErrAdvice is wrapped by [Advise]'s errors about its inputs.
var ErrAdvice = errors.New("budget: bad advice input")

// Advice is the verdict on one tool: what keeping it resident costs over
// the observed turns against what deferring it costs.
type Advice struct {
	Name   string        `json:"name"`
	Chars  int           `json:"chars"`
	Tokens budget.Tokens `json:"tokens"`
	Uses   int           `json:"uses"`
	// Resident is Tokens × Turns.
	Resident int `json:"resident_cost_tokens"`
	// Deferred is the name in the index on every turn, plus, per use, the
	// loaded schema, the tool_search call and the round trip.
	Deferred int `json:"deferred_cost_tokens"`
	// Saving is Resident − Deferred; Defer is Saving > 0.
	Saving int  `json:"saving_tokens"`
	Defer  bool `json:"defer"`
}

// searchCallOverhead is what a tool_search call naming one tool adds on top
// of the loaded schema: the call's name and arguments and the name again
// ({"tool_names":["X"]}), counted per tool below.
const searchCallOverhead = `tool_search{"tool_names":[""]}`

// Advise ranks tools by what deferring each saves, from its size and how
// often it was used (usage maps names to calls over opts.Turns requests;
// names not in usage count as unused). The list is sorted by saving, then
// name; Defer marks the tools worth deferring.
func Advise(tools []*registry.Tool, usage map[string]int, opts *Options) ([]Advice, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Counter == nil {
		o.Counter = estimating()
	}
	maxUse := 0
	for name, n := range usage {
		if n < 0 {
			return nil, errors.Join(ErrAdvice, errors.New("usage of "+name+" is negative"))
		}
		maxUse = max(maxUse, n)
	}
	if o.Turns <= 0 || o.Turns < maxUse || o.RoundTrip < 0 {
		return nil, errors.Join(ErrAdvice, errors.New("turns must be positive and at least the largest usage count, round trip not negative"))
	}
	c := o.Counter
	overhead := c.Count(budget.KindJSON, searchCallOverhead)
	out := make([]Advice, 0, len(tools))
	for _, t := range tools {
		tok := toolTokens(c, t).Add(c.Count(budget.KindProse, t.Name))
		name := c.Count(budget.KindProse, t.Name+"\n")
		a := Advice{Name: t.Name, Chars: toolChars(t), Tokens: tok, Uses: usage[t.Name]}
		a.Resident = tok.N * o.Turns
		perUse := tok.N + overhead.N + name.N + o.RoundTrip
		a.Deferred = name.N*o.Turns + a.Uses*perUse
		a.Saving = a.Resident - a.Deferred
		a.Defer = a.Saving > 0
		a.Tokens.Estimate = tok.Estimate || overhead.Estimate
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b Advice) int {
		return cmp.Or(cmp.Compare(b.Saving, a.Saving), cmp.Compare(a.Name, b.Name))
	})
	return out, nil
}

// Repeat is a piece of text repeated across tool definitions: a sentence of
// several descriptions, or a per-field description of several schemas.
type Repeat struct {
	Text string `json:"text"`
	// Count is the number of occurrences; Where lists where they are (tool
	// names, or tool.field paths), sorted, each once.
	Count int      `json:"count"`
	Where []string `json:"where"`
	// Chars is the runes of one copy; WastedChars those of the copies
	// beyond the first, what factoring the text out would save.
	Chars       int `json:"chars"`
	WastedChars int `json:"wasted_chars"`
	// WastedTokens is the tokens of those copies (one copy's count times
	// Count−1; in context a copy can tokenize a token apart).
	WastedTokens budget.Tokens `json:"wasted_tokens"`
}

// minRepeatChars is the shortest sentence [Boilerplate] reports: shorter
// ones ("Required.") cost little and are not boilerplate worth factoring.
const minRepeatChars = 20

// Boilerplate finds sentences repeated across tool descriptions (a sentence
// that appears in two or more tools, or twice in one), most wasteful first.
func Boilerplate(tools []*registry.Tool, c *budget.Counter) []Repeat {
	seen := map[string][]string{}
	for _, t := range tools {
		for _, s := range sentences(t.Description) {
			if utf8.RuneCountInString(s) >= minRepeatChars {
				seen[s] = append(seen[s], t.Name)
			}
		}
	}
	return repeats(seen, budget.KindProse, c)
}

// RepeatedFields finds per-field descriptions repeated across schemas (the
// same "owner"/"repo" description in every tool of a server), most wasteful
// first. Nested properties and array items are searched too.
func RepeatedFields(tools []*registry.Tool, c *budget.Counter) []Repeat {
	seen := map[string][]string{}
	for _, t := range tools {
		var schema any
		if json.Unmarshal(t.ModelSchema(), &schema) != nil {
			continue
		}
		walkFields(schema, t.Name, func(path, desc string) {
			seen[desc] = append(seen[desc], path)
		})
	}
	return repeats(seen, budget.KindProse, c)
}

func walkFields(schema any, path string, visit func(path, desc string)) {
	m, ok := schema.(map[string]any)
	if !ok {
		return
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for name, p := range props {
			if pm, ok := p.(map[string]any); ok {
				if d, ok := pm["description"].(string); ok && strings.TrimSpace(d) != "" {
					visit(path+"."+name, d)
				}
			}
			walkFields(p, path+"."+name, visit)
		}
	}
	if items, ok := m["items"]; ok {
		walkFields(items, path+"[]", visit)
	}
}

func repeats(seen map[string][]string, kind budget.Kind, c *budget.Counter) []Repeat {
	if c == nil {
		c = estimating()
	}
	var out []Repeat
	for text, where := range seen {
		if len(where) < 2 {
			continue
		}
		slices.Sort(where)
		one := c.Count(kind, text)
		r := Repeat{Text: text, Count: len(where), Where: slices.Compact(where), Chars: utf8.RuneCountInString(text)}
		r.WastedChars = r.Chars * (r.Count - 1)
		r.WastedTokens = budget.Tokens{N: one.N * (r.Count - 1), Estimate: one.Estimate}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Repeat) int {
		return cmp.Or(cmp.Compare(b.WastedChars, a.WastedChars), cmp.Compare(a.Text, b.Text))
	})
	return out
}

// sentences splits text into trimmed sentences: at line breaks, and after
// '.', '!' or '?' followed by a space.
func sentences(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		start := 0
		for i := 0; i < len(line); i++ {
			if (line[i] == '.' || line[i] == '!' || line[i] == '?') && i+1 < len(line) && line[i+1] == ' ' {
				out = appendTrimmed(out, line[start:i+1])
				start = i + 1
			}
		}
		out = appendTrimmed(out, line[start:])
	}
	return out
}

func appendTrimmed(out []string, s string) []string {
	if s = strings.TrimSpace(s); s != "" {
		out = append(out, s)
	}
	return out
}

// estimating is the counter used when none is given: a character estimate,
// marked as such.
func estimating() *budget.Counter {
	c, _ := budget.NewCounter("estimate") // a valid encoding
	return c
}

// toolChars is a tool's size as the savings account counts it: runes of
// its description plus runes of its model-facing schema's compact JSON.
func toolChars(t *registry.Tool) int {
	return utf8.RuneCountInString(t.Description) + utf8.RuneCountInString(string(t.ModelSchema()))
}

// toolTokens counts a tool as the savings account does: its description
// as prose, its model-facing schema as JSON.
func toolTokens(c *budget.Counter, t *registry.Tool) budget.Tokens {
	return c.Count(budget.KindProse, t.Description).Add(c.Count(budget.KindJSON, string(t.ModelSchema())))
}
