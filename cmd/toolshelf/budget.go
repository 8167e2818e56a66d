package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/toolshelf/toolshelf/budget"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/advice"
	"github.com/toolshelf/toolshelf/internal/engine/textfmt"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// budgetJSON is budget's --json output: the account's keys at the top
// level, then the window and the bar.
type budgetJSON struct {
	Catalogs []string `json:"catalogs"`
	// MCPServer is the first live server --mcp-stdio listed; absent
	// without it. MCPServers are all of them, in flag order.
	MCPServer  *mcpServerJSON   `json:"mcp_server,omitempty"`
	MCPServers []*mcpServerJSON `json:"mcp_servers,omitempty"`
	// MCPSkipped are the --mcp-config entries not started, with why.
	MCPSkipped []string `json:"mcp_skipped,omitempty"`
	*budget.Account
	// Window is null when unknown: --window, or the documented window of
	// --model (WindowSource names it).
	Window       *int   `json:"window"`
	WindowSource string `json:"window_source,omitempty"`
	// ResidentTokens is what the request carries after deferral: resident
	// tools, entry tools and the index.
	ResidentTokens budget.Tokens `json:"resident_tokens"`
	// Free is null when the window is unknown; negative when over budget.
	Free *int             `json:"free"`
	Over bool             `json:"over_budget"`
	Bar  []budget.Segment `json:"bar"`
	// Repeats are the most wasteful repeated sentences and field
	// descriptions (at most 5 each).
	RepeatedSentences []advice.Repeat `json:"repeated_sentences"`
	RepeatedFields    []advice.Repeat `json:"repeated_fields"`
	// Advice ranks the visible tools by what deferring each saves over
	// --turns requests, given --usage counts; absent without --usage.
	Advice []advice.Advice `json:"advice,omitempty"`
	// Aliases are the MCP tools whose mcp__<server>__<tool> name broke the
	// providers' name rule, under the alias the model sees (toolname.Alias).
	Aliases []aliasJSON `json:"aliases,omitempty"`
	// Warnings are the schema keywords the dispatcher leaves out of
	// validation (registry.Warning): sent to the provider as written,
	// never silently unchecked.
	Warnings []warningJSON `json:"warnings,omitempty"`
	// RuleWarnings are the --rules that select no tool, each with the
	// names close to it.
	RuleWarnings []string `json:"rule_warnings,omitempty"`
	// Denied are the tools --rules' Deny leaves out of every request;
	// Asked the visible tools an Ask rule selects.
	Denied []string `json:"denied,omitempty"`
	Asked  []string `json:"asked,omitempty"`
}

// aliasJSON is one aliased tool: the name the model sees and calls, and
// the server's own name, which calls are mapped back to.
type aliasJSON struct {
	Alias      string `json:"alias"`
	ServerName string `json:"server_name"`
}

// budgetOptions are budget's flags, parsed.
type budgetOptions struct {
	catalogs         files
	rules            string
	window           int
	encName, model   string
	asJSON, color    bool
	usage            string
	turns, roundTrip int
	mcpStdio, names  strs
	mcpConfig        string
	timeout          time.Duration
	serverName       string
}

// budgetFlags declares budget's flags, to be parsed into the returned options.
func budgetFlags() (*flag.FlagSet, *budgetOptions) {
	fs := flag.NewFlagSet("budget", flag.ContinueOnError)
	o := &budgetOptions{}
	fs.Var(&o.catalogs, "catalog", "catalog `FILE` (repeatable; more files may follow)")
	fs.StringVar(&o.rules, "rules", "", rulesUsage)
	fs.IntVar(&o.window, "window", 0, "context window in `N` tokens; 0 means unknown")
	fs.StringVar(&o.encName, "encoding", "", "tokenizer `NAME`: o200k_base (when not given), cl100k_base, estimate or claude_estimate")
	fs.StringVar(&o.model, "model", "", "model `NAME`, mapped to its tokenizer (claude-*: claude_estimate, calibrated; gemini-*: estimate)")
	fs.BoolVar(&o.asJSON, "json", false, "write JSON")
	fs.BoolVar(&o.color, "color", false, "draw an over-budget bar in ANSI red")
	fs.StringVar(&o.usage, "usage", "", "usage counts `FILE`: {\"ToolName\": calls, ...} observed over --turns requests")
	fs.IntVar(&o.turns, "turns", 0, "the number `N` of model requests the --usage counts were observed over")
	fs.IntVar(&o.roundTrip, "round-trip", 0, "`N` tokens one extra model request costs (0: count only the search and the schema)")
	fs.Var(&o.mcpStdio, "mcp-stdio", "command `LINE` of a stdio MCP server to start and list (shell quoting, no shell); repeatable: every server is measured")
	fs.StringVar(&o.mcpConfig, "mcp-config", "", "an mcpServers `FILE` (Claude Desktop, Claude Code, Cursor): every stdio server started and measured, each under its entry's name")
	fs.Var(&o.names, "name", "the group `NAME` of the --mcp-stdio server of the same rank (the first --name names the first server ...; default: from its serverInfo name)")
	fs.DurationVar(&o.timeout, "timeout", 30*time.Second, "bound on starting the --mcp-stdio server and listing its tools")
	fs.StringVar(&o.serverName, "server", "", "the server `NAME` of a --catalog that is an MCP tools/list (it names none)")
	return fs, o
}

// runBudget prints the savings account and the context bar of catalogs.
// Exit 1 when the resident definitions do not fit a known window.
func runBudget(args []string, stdout, stderr io.Writer) int {
	fs, o := budgetFlags()
	pos, err := parse(fs, args)
	if err != nil {
		return parseFailed(fs, err, stdout, stderr)
	}
	o.catalogs = append(o.catalogs, pos...)
	counter, err := o.check(fs)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	out, bar, err := o.account(counter)
	if err != nil {
		return fail(stderr, "%v", err)
	}

	var buf bytes.Buffer
	if o.asJSON {
		if err := writeJSON(&buf, out); err != nil {
			return fail(stderr, "toolshelf budget: %v", err)
		}
	} else {
		writeAccount(&buf, out, bar, o.color)
	}
	stdout.Write(buf.Bytes())
	if out.Over {
		return exitFinding
	}
	return exitOK
}

// check validates the parsed flags and returns the counter of the
// tokenizer they name; its errors are the whole message for the user.
func (o *budgetOptions) check(fs *flag.FlagSet) (*budget.Counter, error) {
	if len(o.catalogs) == 0 && len(o.mcpStdio) == 0 && o.mcpConfig == "" {
		return nil, errors.New("toolshelf budget: no catalog: pass --catalog FILE (MCP tools/list, OpenAI, Anthropic or catalog-file JSON), --mcp-stdio 'COMMAND ARGS' or --mcp-config FILE (an mcpServers file)")
	}
	if len(o.mcpStdio) == 0 && flagSet(fs, "name") || len(o.mcpStdio) == 0 && o.mcpConfig == "" && flagSet(fs, "timeout") {
		return nil, errors.New("toolshelf budget: --name and --timeout go with --mcp-stdio 'COMMAND ARGS'")
	}
	if len(o.names) > len(o.mcpStdio) {
		return nil, fmt.Errorf("toolshelf budget: %d --name for %d --mcp-stdio: each --name names the --mcp-stdio server of the same rank", len(o.names), len(o.mcpStdio))
	}
	if o.timeout <= 0 {
		return nil, fmt.Errorf("toolshelf budget: --timeout %s: must be positive", o.timeout)
	}
	if o.window < 0 {
		return nil, fmt.Errorf("toolshelf budget: --window %d: must be a positive number of tokens, or 0 for unknown", o.window)
	}
	switch {
	case o.usage == "" && (o.turns != 0 || o.roundTrip != 0):
		return nil, errors.New("toolshelf budget: --turns and --round-trip go with --usage FILE")
	case o.usage != "" && o.turns <= 0:
		return nil, errors.New("toolshelf budget: --usage needs --turns N, the number of model requests the counts were observed over")
	case o.roundTrip < 0:
		return nil, fmt.Errorf("toolshelf budget: --round-trip %d: must not be negative", o.roundTrip)
	}
	switch {
	case o.encName != "" && o.model != "":
		return nil, errors.New("toolshelf budget: give --encoding or --model, not both")
	case o.model != "":
		return budget.CounterForModel(o.model), nil
	}
	enc := budget.Encoding("o200k_base")
	if o.encName != "" {
		enc = budget.Encoding(o.encName)
	}
	counter, err := budget.NewCounter(enc)
	if err != nil {
		return nil, fmt.Errorf("toolshelf budget: --encoding: %v", err)
	}
	return counter, nil
}

// account loads the catalogs (and the --mcp-stdio server), plans them
// under --rules and returns the output and the context bar.
func (o *budgetOptions) account(counter *budget.Counter) (*budgetJSON, budget.Bar, error) {
	reg, err := loadCatalogs(o.catalogs, o.serverName)
	if err != nil {
		return nil, budget.Bar{}, fmt.Errorf("toolshelf budget: %v", err)
	}
	var servers []*mcpServerJSON
	for i, line := range o.mcpStdio {
		name := ""
		if i < len(o.names) {
			name = o.names[i]
		}
		server, err := addMCPServer(reg, line, name, o.timeout)
		if err != nil {
			return nil, budget.Bar{}, fmt.Errorf("toolshelf budget: %v", err)
		}
		servers = append(servers, server)
	}
	var skipped []string
	if o.mcpConfig != "" {
		more, sk, err := addMCPConfig(reg, o.mcpConfig, o.timeout)
		if err != nil {
			return nil, budget.Bar{}, fmt.Errorf("toolshelf budget: %v", err)
		}
		servers, skipped = append(servers, more...), sk
	}
	rs, err := readRuleSet(o.rules)
	if err != nil {
		return nil, budget.Bar{}, fmt.Errorf("toolshelf budget: %v", err)
	}
	plan, err := rs.policy().Plan(reg.Snapshot(), deferral.View{Tier: registry.TierFull})
	if err != nil {
		return nil, budget.Bar{}, fmt.Errorf("toolshelf budget: %v", err)
	}
	entry, index, err := request.EntryDefinitions(plan, nil)
	if err != nil {
		return nil, budget.Bar{}, fmt.Errorf("toolshelf budget: %v", err)
	}
	acc, err := budget.NewAccount(plan, &budget.AccountOptions{Counter: counter, Entry: entry, Index: index})
	if err != nil {
		return nil, budget.Bar{}, fmt.Errorf("toolshelf budget: %v", err)
	}

	resident := budget.Tokens{N: acc.Tokens.ResidentWithEntry + acc.Tokens.Index, Estimate: acc.Tokens.Estimate}
	bar := budget.Bar{Window: o.window, Segments: []budget.Segment{{Label: "tools", Tokens: resident}}}
	visible := append(plan.Resident(), plan.Deferred()...)
	out := &budgetJSON{
		Catalogs: append([]string{}, o.catalogs...), MCPServers: servers, Account: acc, ResidentTokens: resident, Over: o.window > 0 && resident.N > o.window, Bar: bar.Segments,
		RepeatedSentences: top(advice.Boilerplate(visible, counter), 5),
		RepeatedFields:    top(advice.RepeatedFields(visible, counter), 5),
	}
	out.Warnings = warningsJSON(reg.Warnings())
	out.RuleWarnings = rs.unmatched(plan.Snapshot())
	out.Denied, out.Asked = rs.effect(plan)
	for _, t := range visible {
		if t.Aliased() {
			out.Aliases = append(out.Aliases, aliasJSON{Alias: t.Name, ServerName: t.OriginalName})
		}
	}
	if o.usage != "" {
		if out.Advice, err = advise(o.usage, plan.Snapshot(), visible, counter, o.turns, o.roundTrip); err != nil {
			return nil, budget.Bar{}, fmt.Errorf("toolshelf budget: %v", err)
		}
	}
	if o.window == 0 && o.model != "" {
		if n, ok := knownWindow(o.model); ok {
			o.window, out.WindowSource = n, o.model
			bar.Window = n
			out.Over = resident.N > n
		}
	}
	if len(servers) > 0 {
		out.MCPServer = servers[0]
	}
	out.MCPSkipped = skipped
	if o.window > 0 {
		free, window := o.window-resident.N, o.window
		out.Window, out.Free = &window, &free
	}
	return out, bar, nil
}

func top(r []advice.Repeat, n int) []advice.Repeat {
	if r == nil {
		return []advice.Repeat{}
	}
	return r[:min(n, len(r))]
}

// writeAccount writes the account in the form of the published accounting.
func writeAccount(w io.Writer, o *budgetJSON, bar budget.Bar, color bool) {
	a := o.Account
	for _, s := range o.MCPSkipped {
		fmt.Fprintf(w, "MCP server %s (not measured)\n", s)
	}
	for _, s := range o.MCPServers {
		fmt.Fprintf(w, "MCP server %s: %s %s, protocol %s, %d tools in %d %s, deferred unless --rules keep them\n",
			s.Name, s.ServerName, s.ServerVersion, s.ProtocolVersion, s.Tools, s.Pages, map[bool]string{true: "page", false: "pages"}[s.Pages == 1])
	}
	a.WriteText(w) // the account's own lines, labelled, with their units
	for _, r := range o.RepeatedSentences[:min(3, len(o.RepeatedSentences))] {
		fmt.Fprintf(w, "repeated sentence %d×      wastes %s chars, %s: %q\n", r.Count, textfmt.Thousands(r.WastedChars), r.WastedTokens.String()+" tokens", clip(r.Text, 60))
	}
	for _, r := range o.RepeatedFields[:min(3, len(o.RepeatedFields))] {
		fmt.Fprintf(w, "repeated field text %d×    wastes %s chars, %s: %q\n", r.Count, textfmt.Thousands(r.WastedChars), r.WastedTokens.String()+" tokens", clip(r.Text, 60))
	}
	for _, a := range o.Aliases {
		fmt.Fprintf(w, "alias                     %s for the server's tool %q (name over 64 characters or outside [A-Za-z0-9_-])\n", a.Alias, a.ServerName)
	}
	writeWarnings(w, o.Warnings)
	writeEffect(w, o.Denied, o.Asked)
	for _, r := range o.RuleWarnings {
		fmt.Fprintf(w, "rule warning              %s\n", r)
	}
	writeAdvice(w, o.Advice)
	line := bar.Render(&budget.BarOptions{Color: color})
	if o.Window == nil {
		line += " (pass --window N, or a --model whose window is known)"
	} else if o.WindowSource != "" {
		line += " (window of " + o.WindowSource + ")"
	}
	fmt.Fprintf(w, "tools in every request    %s\n", line)
}

func pct(f float64, digits int) string { return strconv.FormatFloat(f*100, 'f', digits, 64) + "%" }

func ratio(f float64) string { return textfmt.Thousands(int(f + 0.5)) }

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// knownWindows are the context windows, in tokens, of the models the docs
// name, as their providers document them: Anthropic's models overview
// (claude-sonnet-4-5, claude-opus-4-1, claude-haiku-4-5: 200,000; 1M is a
// beta header away), OpenAI's model pages (gpt-4o: 128,000; gpt-4.1:
// 1,047,576; gpt-5: 400,000). Longest prefix first: a dated snapshot
// (claude-sonnet-4-5-20250929) has its family's window.
var knownWindows = []struct {
	prefix string
	window int
}{
	{"claude-sonnet-4-5", 200_000}, {"claude-opus-4-1", 200_000}, {"claude-haiku-4-5", 200_000},
	{"gpt-4.1", 1_047_576}, {"gpt-4o", 128_000}, {"gpt-5", 400_000},
}

// knownWindow returns the documented context window of model.
func knownWindow(model string) (int, bool) {
	for _, k := range knownWindows {
		if model == k.prefix || strings.HasPrefix(model, k.prefix+"-") {
			return k.window, true
		}
	}
	return 0, false
}

// strs is a repeatable string flag: each use adds one value.
type strs []string

func (s *strs) String() string     { return strings.Join(*s, " ") }
func (s *strs) Set(v string) error { *s = append(*s, v); return nil }
