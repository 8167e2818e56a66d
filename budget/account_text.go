package budget

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/toolshelf/toolshelf/internal/engine/textfmt"
)

// WriteText writes the account as `toolshelf budget` prints it: one line
// per figure, each with its label and unit — tools, characters (runes),
// tokens (marked ~ when estimated, with the counting method) — as in the
// published accounting. Its JSON form is the Account itself
// (json.Marshal: every field tagged, characters and tokens named as such),
// which `toolshelf budget --json` prints at its top level.
func (a *Account) WriteText(w io.Writer) error {
	t := a.Tokens
	th := textfmt.Thousands
	tok := func(n int) string { return Tokens{N: n, Estimate: t.Estimate}.String() + " tokens" }
	var b strings.Builder
	kind := " (exact counts)"
	if t.Estimate {
		kind = " (estimates, marked ~)"
	}
	fmt.Fprintf(&b, "tokens counted with       %s%s\n", t.Encoding, kind)
	if t.Estimate && t.Method != "" {
		fmt.Fprintf(&b, "  method: %s\n", t.Method)
	}
	fmt.Fprintf(&b, "all tools resident        %3d tools  %9s chars  %s\n", a.ToolsTotal, th(a.CharsTotal), tok(t.All))
	if a.EntryCount > 0 {
		fmt.Fprintf(&b, "  with the entry tools    %3d tools  %9s chars  %s\n", a.ToolsTotal+a.EntryCount, th(a.CharsWithEntry), tok(t.AllWithEntry))
	}
	fmt.Fprintf(&b, "deferrable                %3d tools  %9s chars  %s  (%s of all chars)\n", a.DeferredCount, th(a.DeferredChars), tok(t.Deferred), percent(a.DeferredShare, 1))
	fmt.Fprintf(&b, "resident after deferral   %3d tools  %9s chars  %s", a.ResidentCount, th(a.ResidentChars), tok(t.Resident))
	if a.EntryCount > 0 {
		fmt.Fprintf(&b, "  (%s chars with the entry tools)", th(a.ResidentWithEntry))
	}
	b.WriteByte('\n')
	fmt.Fprintf(&b, "index replacing them                 %9s chars  %s  (the full names one a line: %s chars)\n", th(a.IndexChars), tok(t.Index), th(a.NamesChars))
	if a.ArrivedCount+a.RemovedCount+a.AnnouncedChars > 0 {
		fmt.Fprintf(&b, "arrived after the freeze  %3d tools  %9s chars  %s  (deferred, announced)\n", a.ArrivedCount, th(a.ArrivedChars), tok(t.Arrived))
		fmt.Fprintf(&b, "left after the freeze     %3d tools  %9s chars  %s  (still in the prefix)\n", a.RemovedCount, th(a.RemovedChars), tok(t.Removed))
		fmt.Fprintf(&b, "announcements sent                   %9s chars  %s  (in the history, re-read every request)\n", th(a.AnnouncedChars), tok(t.Announced))
	}
	fmt.Fprintf(&b, "net saving per turn                  %9s chars  %s  (deferred − index%s; %.2f× the index's %s-char budget)\n", th(a.NetSaving), tok(t.NetSaving), liveTerms(a), a.SavingMultiple, th(a.IndexBudget))
	fmt.Fprintf(&b, "  net of the entry tools             %9s chars  %s\n", th(a.NetSavingAfterEntry), tok(t.NetSavingAfterEntry))
	fmt.Fprintf(&b, "schema-to-name ratios     all %s:1 · deferred %s:1 · longest %s:1  (definition chars per name char)\n", roundRatio(a.RatioAll), roundRatio(a.RatioDeferred), roundRatio(a.RatioLongest))
	if a.LongestName != "" {
		fmt.Fprintf(&b, "longest deferred tool     %s, %s chars = %s of the deferrable chars\n", a.LongestName, th(a.LongestChars), percent(a.LongestShare, 0))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// liveTerms names the live set's terms of the net saving, if any.
func liveTerms(a *Account) string {
	if a.ArrivedCount+a.RemovedCount+a.AnnouncedChars == 0 {
		return ""
	}
	return " + arrived − left − announcements"
}

func percent(f float64, digits int) string { return strconv.FormatFloat(f*100, 'f', digits, 64) + "%" }

func roundRatio(f float64) string { return textfmt.Thousands(int(f + 0.5)) }
