package budget

import (
	"errors"
	"math"
	"strings"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
	"github.com/toolshelf/toolshelf/registry"
)

// publishedCharsPerToken is the flat rate the published accounting used for
// its token figures (every character at 4 a token, JSON included).
const publishedCharsPerToken = 4

// AccountOptions configures [NewAccount]. Nil means defaults.
type AccountOptions struct {
	// Counter counts the account's tokens. Nil estimates (and marks it).
	Counter *Counter
	// Entry are the entry tools' definitions as sent (tool_search with its
	// rendered description, defer_execute). Their size is added to the
	// totals and subtracted from the saving on its own line. Nil leaves
	// them out: the entry figures are then zero.
	Entry []*registry.Tool
	// Index is the index text that replaces the deferred tools. Empty means
	// the published form: the deferred names, one per line, each ending in
	// a newline.
	Index string
	// IndexBudget is the index's character budget; 0 means 20,000, the
	// budget tool_search itself renders the index within by default
	// (search.Options.IndexBudget).
	IndexBudget int
}

// errNoPlan is returned by [NewAccount] for a nil plan.
var errNoPlan = errors.New("budget: no plan")

// Account is the savings account of a deferral plan, in the form of the
// published 60-tool accounting. Sizes are characters (runes): a tool's size
// is its description plus the compact JSON of its model-facing schema.
type Account struct {
	// ToolsTotal and CharsTotal: every visible tool resident (entry tools
	// not included).
	ToolsTotal int `json:"tools_total"`
	CharsTotal int `json:"chars_total"`
	// EntryCount and EntryChars: tool_search and defer_execute.
	EntryCount int `json:"entry_count"`
	EntryChars int `json:"entry_chars"`
	// CharsWithEntry is CharsTotal plus EntryChars.
	CharsWithEntry int `json:"chars_with_entry"`
	// HiddenCount counts tools the plan hides; they are in no figure.
	HiddenCount int `json:"hidden_count"`

	// DeferredCount and DeferredChars: the tools the plan defers.
	DeferredCount int `json:"deferred_count"`
	DeferredChars int `json:"deferred_chars"`
	// DeferredShare is DeferredChars over CharsWithEntry.
	DeferredShare float64 `json:"deferred_share"`

	// ResidentCount and ResidentChars: what stays resident after deferral;
	// ResidentWithEntry adds the entry tools.
	ResidentCount     int `json:"resident_count"`
	ResidentChars     int `json:"resident_chars"`
	ResidentWithEntry int `json:"resident_with_entry_chars"`

	// NamesChars is the runes of the deferred names; IndexChars the runes
	// of the index that replaces the deferred definitions.
	NamesChars int `json:"names_chars"`
	IndexChars int `json:"index_chars"`

	// The live set (AccountFor, from Session.LiveTools; zero for a plan):
	// ArrivedCount and ArrivedChars are the tools that arrived after the
	// freeze and are shown, deferred (every one would be resident without
	// deferral); RemovedCount and RemovedChars the frozen tools that left
	// (the prefix still carries them, an all-resident request would not);
	// AnnouncedChars the Sync announcements placed in the history, re-read
	// on every later request.
	ArrivedCount   int `json:"arrived_count,omitempty"`
	ArrivedChars   int `json:"arrived_chars,omitempty"`
	RemovedCount   int `json:"removed_count,omitempty"`
	RemovedChars   int `json:"removed_chars,omitempty"`
	AnnouncedChars int `json:"announced_chars,omitempty"`

	// NetSaving is DeferredChars − IndexChars, saved on every turn; with a
	// live set, + ArrivedChars − RemovedChars − AnnouncedChars.
	NetSaving int `json:"net_saving_chars"`
	// NetSavingAfterEntry also pays for the entry tools.
	NetSavingAfterEntry int `json:"net_saving_after_entry_chars"`
	// IndexBudget and SavingMultiple: NetSaving as a multiple of the
	// index's character budget.
	IndexBudget    int     `json:"index_budget_chars"`
	SavingMultiple float64 `json:"saving_multiple"`

	// Schema-to-name ratios: definition chars per name char, for every
	// tool, for the deferred tools, and for the longest deferred tool.
	RatioAll      float64 `json:"ratio_all"`
	RatioDeferred float64 `json:"ratio_deferred"`
	RatioLongest  float64 `json:"ratio_longest"`

	// LongestName, LongestChars, LongestShare: the largest deferred tool
	// and its share of DeferredChars.
	LongestName  string  `json:"longest_name"`
	LongestChars int     `json:"longest_chars"`
	LongestShare float64 `json:"longest_share"`

	// Tokens are the token figures with the counter's encoding.
	Tokens AccountTokens `json:"tokens"`
	// Published are the token figures at the publication's flat 4 chars a
	// token, for comparison with it. They are estimates.
	Published PublishedTokens `json:"tokens_at_4_chars"`
}

// AccountTokens are an account's token figures. Estimate is true when any of
// them is estimated.
type AccountTokens struct {
	Encoding Encoding `json:"encoding"`
	Estimate bool     `json:"estimate"`
	// Method says how estimates were made (the calibration of a Claude
	// estimate, the character rates); absent for exact counts.
	Method              string `json:"method,omitempty"`
	All                 int    `json:"all"`
	Entry               int    `json:"entry"`
	AllWithEntry        int    `json:"all_with_entry"`
	Deferred            int    `json:"deferred"`
	Resident            int    `json:"resident"`
	ResidentWithEntry   int    `json:"resident_with_entry"`
	Index               int    `json:"index"`
	NetSaving           int    `json:"net_saving"`
	NetSavingAfterEntry int    `json:"net_saving_after_entry"`
	// Arrived, Removed and Announced count the live set (see Account);
	// they are in NetSaving and NetSavingAfterEntry.
	Arrived   int `json:"arrived,omitempty"`
	Removed   int `json:"removed,omitempty"`
	Announced int `json:"announced,omitempty"`
}

// PublishedTokens are token figures at 4 characters a token, rounded up
// once per figure as the publication did.
type PublishedTokens struct {
	AllWithEntry int  `json:"all_with_entry"`
	Index        int  `json:"index"`
	NetSaving    int  `json:"net_saving"`
	Estimate     bool `json:"estimate"`
}

// toolChars is a tool's size in the account: runes of its description plus
// runes of its model-facing schema's compact JSON.
func toolChars(t *registry.Tool) int {
	return runeCount(t.Description) + runeCount(string(t.ModelSchema()))
}

// nameList is the published form of the index: names one per line, each
// ending in a newline.
func nameList(tools []*registry.Tool) string {
	var b strings.Builder
	for _, t := range tools {
		b.WriteString(t.Name)
		b.WriteByte('\n')
	}
	return b.String()
}

// NewAccount computes the savings account of plan (deferred tools are
// plan.Deferred(), resident ones plan.Resident()).
func NewAccount(plan *deferral.Plan, opts *AccountOptions) (*Account, error) {
	if plan == nil {
		return nil, errNoPlan
	}
	var o AccountOptions
	if opts != nil {
		o = *opts
	}
	if o.Counter == nil {
		o.Counter, _ = NewCounter(encodingEstimate)
	}
	if o.IndexBudget <= 0 {
		o.IndexBudget = toolsearch.DefaultIndexBudget
	}
	resident, deferred := plan.Resident(), plan.Deferred()
	all := make([]*registry.Tool, 0, len(resident)+len(deferred))
	all = append(append(all, resident...), deferred...)
	if o.Index == "" {
		o.Index = nameList(deferred)
	}

	a := &Account{
		ToolsTotal:    len(all),
		CharsTotal:    sumChars(all),
		EntryCount:    len(o.Entry),
		EntryChars:    sumChars(o.Entry),
		HiddenCount:   len(plan.Snapshot().Tools()) - len(plan.Resident()) - len(plan.Deferred()),
		DeferredCount: len(deferred),
		DeferredChars: sumChars(deferred),
		ResidentCount: len(resident),
		ResidentChars: sumChars(resident),
		NamesChars:    sumNames(deferred),
		IndexChars:    runeCount(o.Index),
		IndexBudget:   o.IndexBudget,
	}
	a.CharsWithEntry = a.CharsTotal + a.EntryChars
	a.ResidentWithEntry = a.ResidentChars + a.EntryChars
	a.DeferredShare = ratio(a.DeferredChars, a.CharsWithEntry)
	a.NetSaving = a.DeferredChars - a.IndexChars
	a.NetSavingAfterEntry = a.NetSaving - a.EntryChars
	a.SavingMultiple = ratio(a.NetSaving, a.IndexBudget)
	a.RatioAll = ratio(a.CharsTotal, sumNames(all))
	a.RatioDeferred = ratio(a.DeferredChars, a.NamesChars)
	for _, t := range deferred {
		if c := toolChars(t); c > a.LongestChars {
			a.LongestName, a.LongestChars = t.Name, c
		}
	}
	a.RatioLongest = ratio(a.LongestChars, runeCount(a.LongestName))
	a.LongestShare = ratio(a.LongestChars, a.DeferredChars)

	c := o.Counter
	allT, entryT := countTools(c, all), countTools(c, o.Entry)
	defT, resT := countTools(c, deferred), countTools(c, resident)
	idxT := c.countFrozenTokens(KindProse, o.Index)
	a.Tokens = AccountTokens{
		Encoding:            c.Encoding(),
		Estimate:            allT.Estimate || entryT.Estimate || idxT.Estimate,
		Method:              c.Method(),
		All:                 allT.N,
		Entry:               entryT.N,
		AllWithEntry:        allT.N + entryT.N,
		Deferred:            defT.N,
		Resident:            resT.N,
		ResidentWithEntry:   resT.N + entryT.N,
		Index:               idxT.N,
		NetSaving:           defT.N - idxT.N,
		NetSavingAfterEntry: defT.N - idxT.N - entryT.N,
	}
	a.Published = PublishedTokens{
		AllWithEntry: ceilDiv(a.CharsWithEntry, publishedCharsPerToken),
		Index:        ceilDiv(a.IndexChars, publishedCharsPerToken),
		NetSaving:    ceilDiv(a.NetSaving, publishedCharsPerToken),
		Estimate:     true,
	}
	return a, nil
}

// addLive adds a session's live set to the account: the tools that arrived
// and the frozen ones that left, and the announcements placed, with c.
func (a *Account) addLive(c *Counter, arrived, removed []*registry.Tool, announced []string) {
	if len(arrived)+len(removed)+len(announced) == 0 {
		return
	}
	a.ArrivedCount, a.ArrivedChars = len(arrived), sumChars(arrived)
	a.RemovedCount, a.RemovedChars = len(removed), sumChars(removed)
	text := strings.Join(announced, "")
	a.AnnouncedChars = runeCount(text)
	live := a.ArrivedChars - a.RemovedChars - a.AnnouncedChars
	a.NetSaving += live
	a.NetSavingAfterEntry += live
	a.SavingMultiple = ratio(a.NetSaving, a.IndexBudget)
	a.Published.NetSaving = ceilDiv(a.NetSaving, publishedCharsPerToken)

	arrT, remT := countTools(c, arrived), countTools(c, removed)
	annT := c.countFrozenTokens(KindProse, text)
	a.Tokens.Arrived, a.Tokens.Removed, a.Tokens.Announced = arrT.N, remT.N, annT.N
	a.Tokens.Estimate = a.Tokens.Estimate || arrT.Estimate || remT.Estimate || annT.Estimate
	liveT := arrT.N - remT.N - annT.N
	a.Tokens.NetSaving += liveT
	a.Tokens.NetSavingAfterEntry += liveT
}

// countTools counts the tokens of tools' descriptions and schemas. An
// estimate rounds once over the whole set, as a flat rate would.
func countTools(c *Counter, tools []*registry.Tool) Tokens {
	if c.byChars() {
		var prose, js int
		for _, t := range tools {
			prose += runeCount(t.Description)
			js += runeCount(string(t.ModelSchema()))
		}
		return Tokens{N: estimateRunes(KindProse, prose) + estimateRunes(KindJSON, js), Estimate: true}
	}
	var prose, js Tokens
	for _, t := range tools {
		p, _ := c.countFrozenVocab(KindProse, t.Description)
		j, _ := c.countFrozenVocab(KindJSON, string(t.ModelSchema()))
		prose, js = prose.Add(p), js.Add(j)
	}
	return c.scale(KindProse, prose).Add(c.scale(KindJSON, js)) // scaled once a kind, as calibrated
}

func sumChars(tools []*registry.Tool) int {
	n := 0
	for _, t := range tools {
		n += toolChars(t)
	}
	return n
}

func sumNames(tools []*registry.Tool) int {
	n := 0
	for _, t := range tools {
		n += runeCount(t.Name)
	}
	return n
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func ceilDiv(a, b int) int { return int(math.Ceil(float64(a) / float64(b))) }
