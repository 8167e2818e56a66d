package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
	"github.com/toolshelf/toolshelf/registry"
)

// runEval implements `toolshelf eval --catalog FILE... --queries FILE.jsonl
// [--min-recall1 X] [--min-recall5 X] [--baseline bm25] [--json]`: recall@1,
// recall@5, MRR and mean schemas loaded of tool_search over the catalogs
// (every tool deferred), per lang, kind and half (tune/check), and the
// misses. --baseline bm25 runs the same queries through the reference
// [toolsearch.PlainBM25] and prints it as a second row ("baseline" in JSON).
// Exit status 1 means a --min-* bar was not met.
func runEval(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	var catalogs files
	fs.Var(&catalogs, "catalog", "catalog `FILE` (repeatable; more files may follow)")
	queries := fs.String("queries", "", "query `FILE`, JSON Lines")
	min1 := fs.Float64("min-recall1", 0, "exit 1 when recall@1 is below `X`")
	min5 := fs.Float64("min-recall5", 0, "exit 1 when recall@5 is below `X`")
	baseline := fs.String("baseline", "", "also run the baseline ranker `NAME` on the same queries: bm25")
	asJSON := fs.Bool("json", false, "print JSON")
	server := fs.String("server", "", "the server `NAME` of a --catalog that is an MCP tools/list (it names none)")
	unions := fs.Int("sizes", 0, "also draw `N` unions of 2–4 of the catalog files and report the figures per catalog size")
	rest, err := parse(fs, args)
	if err != nil {
		return parseFailed(fs, err, stdout, stderr)
	}
	catalogs = append(catalogs, rest...) // --catalog a.json b.json
	if len(catalogs) == 0 || *queries == "" {
		return fail(stderr, "toolshelf eval: give --catalog FILE... and --queries FILE.jsonl")
	}
	if *baseline != "" && *baseline != "bm25" {
		return fail(stderr, "toolshelf eval: unknown --baseline %q (want bm25)", *baseline)
	}
	tools, rep, base, err := evalReports(catalogs, *server, *queries, *baseline != "")
	if err != nil {
		return fail(stderr, "%v", err)
	}
	status := exitOK
	if rep.RecallAt1 < *min1 || rep.RecallAt5 < *min5 {
		status = exitFinding
	}
	if *asJSON {
		out := struct {
			*toolsearch.Report
			Baseline *toolsearch.Report `json:"baseline,omitempty"`
		}{rep, base}
		if err := writeJSON(stdout, out); err != nil {
			return fail(stderr, "toolshelf eval: %v", err)
		}
		return status
	}
	writeEvalText(stdout, rep, base, tools)
	if *unions > 0 {
		if err := writeSizes(stdout, catalogs, *queries, *unions); err != nil {
			return fail(stderr, "toolshelf eval: %v", err)
		}
	}
	if status == exitFinding {
		fmt.Fprintf(stderr, "toolshelf eval: below the bar (recall@1 %.3f, want ≥ %.3f; recall@5 %.3f, want ≥ %.3f)\n", rep.RecallAt1, *min1, rep.RecallAt5, *min5)
	}
	return status
}

// evalReports runs the queries in the file queries over the catalogs,
// every tool deferred, and with baseline through plain BM25 as well. It
// returns the number of tools searched and the reports; its errors are
// the whole message for the user.
func evalReports(catalogs []string, server, queries string, baseline bool) (int, *toolsearch.Report, *toolsearch.Report, error) {
	reg, err := loadCatalogs(catalogs, server)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("toolshelf eval: %v", err)
	}
	// Every tool deferred, as toolsearch.PlanCatalogs plans them.
	all := deferral.Policy{Default: deferral.DefaultDefer, Layers: []deferral.Layer{deferral.MustLayer("eval", "Defer(*)")}}
	plan, err := all.Plan(reg.Snapshot(), deferral.View{Tier: registry.TierFull})
	if err != nil {
		return 0, nil, nil, fmt.Errorf("toolshelf eval: %v", err)
	}
	s, err := toolsearch.New(plan, nil)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("toolshelf eval: %v", err)
	}
	f, err := os.Open(queries)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("toolshelf eval: %v", err)
	}
	qs, err := toolsearch.ReadQueries(f)
	f.Close()
	if err != nil {
		return 0, nil, nil, fmt.Errorf("toolshelf eval: %s: %v", queries, err)
	}
	if len(qs) == 0 {
		return 0, nil, nil, fmt.Errorf("toolshelf eval: %s: no queries (want one JSON object a line: {\"query\": ..., \"expect\": [tool names]})", queries)
	}
	rep, err := toolsearch.Eval(context.Background(), s, qs)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("toolshelf eval: %v", err)
	}
	var base *toolsearch.Report
	if baseline {
		idx, err := toolsearch.PlainBM25{}.Index(context.Background(), plan.Deferred())
		if err != nil {
			return 0, nil, nil, fmt.Errorf("toolshelf eval: %v", err)
		}
		if base, err = toolsearch.EvalIndex(context.Background(), idx, 5, qs); err != nil {
			return 0, nil, nil, fmt.Errorf("toolshelf eval: %v", err)
		}
	}
	return len(plan.Deferred()), rep, base, nil
}

// writeEvalText writes eval's text output: the figures of rep over tools
// deferred tools, sliced by half, lang and kind, the abstention, the
// baseline's figures when base is not nil, and the misses.
func writeEvalText(stdout io.Writer, rep, base *toolsearch.Report, tools int) {
	fmt.Fprintf(stdout, "%d queries over %d tools\n", rep.Queries, tools)
	row := func(label string, f *toolsearch.Figures) {
		fmt.Fprintf(stdout, "%-21s n=%-5d recall@1 %.3f  recall@5 %.3f  MRR %.3f  schemas/query %.2f", label, f.Queries, f.RecallAt1, f.RecallAt5, f.MRR, f.MeanSchemasLoaded)
		if f.MeanTokens > 0 { // tool_search's own answers (not a baseline's)
			fmt.Fprintf(stdout, "  recall@10 %.3f  visible %.3f  tokens/answer %.1f  nothing-fits %d  not-sure %d", f.RecallAt10, f.Visible, f.MeanTokens, f.Abstained, f.NotSure)
			fmt.Fprintf(stdout, "  preloaded %d (right %d)", f.Preloaded, f.PreloadRight)
		}
		fmt.Fprintln(stdout)
	}
	slices := func(r *toolsearch.Report, prefix string) {
		row(prefix+"all", &r.Figures)
		for _, m := range []struct {
			what string
			by   map[string]*toolsearch.Figures
		}{{"half", r.ByHalf}, {"lang", r.ByLang}, {"kind", r.ByKind}} {
			keys := make([]string, 0, len(m.by))
			for k := range m.by {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				row(prefix+m.what+"="+k, m.by[k])
			}
		}
	}
	slices(rep, "")
	if a := rep.Abstention; a != nil {
		fmt.Fprintf(stdout, "no-match queries n=%-5d nothing-fits %d (%.3f)  not-sure %d  schemas loaded %d  preloaded %d\n", a.Queries, a.Abstained, a.Rate(), a.NotSure, a.Loaded, a.Preloaded)
	}
	if base != nil {
		fmt.Fprintln(stdout, "baseline: plain BM25 (k1 1.2, b 0.75), 5 results, every result loaded")
		slices(base, "bm25 ")
	}
	if len(rep.Misses) > 0 {
		fmt.Fprintf(stdout, "misses (expected tool not in the top 5): %d\n", len(rep.Misses))
		for _, ms := range rep.Misses {
			fmt.Fprintf(stdout, "  %s %q: want %s, got %s\n", ms.ID, strings.Join(ms.Query, " | "), strings.Join(ms.Expect, " or "), strings.Join(ms.Got, ", "))
		}
	}
}

// writeSizes runs the queries over unions random unions of 2–4 of the
// catalog files (toolsearch.EvalSizes, a fixed draw) and writes the figures
// per catalog size and half.
func writeSizes(stdout io.Writer, catalogs []string, queries string, unions int) error {
	f, err := os.Open(queries)
	if err != nil {
		return err
	}
	qs, err := toolsearch.ReadQueries(f)
	f.Close()
	if err != nil {
		return err
	}
	ranges, err := toolsearch.EvalSizes(context.Background(), catalogs, qs, unions, 47)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "by catalog size (%d unions of 2–4 catalogs; each query over the unions holding its tools):\n", unions)
	for _, r := range ranges {
		for _, h := range []string{toolsearch.HalfTune, toolsearch.HalfCheck} {
			fmt.Fprintf(stdout, "%s (%d unions, %d–%d) half=%s", r.Label(), r.Unions, r.Smallest, r.Largest, h)
			if fg := r.ByHalf[h]; fg != nil {
				fmt.Fprintf(stdout, "  n=%d recall@1 %.3f  recall@5 %.3f  nothing-fits %d  not-sure %d  preloaded %d (right %d)", fg.Queries, fg.RecallAt1, fg.RecallAt5, fg.Abstained, fg.NotSure, fg.Preloaded, fg.PreloadRight)
			}
			if r.Abstention != nil && r.Abstention.ByHalf[h] != nil {
				a := r.Abstention.ByHalf[h]
				fmt.Fprintf(stdout, "  no-match n=%d nothing-fits %d (%.3f)  not-sure %d  preloaded %d", a.Queries, a.Abstained, a.Rate(), a.NotSure, a.Preloaded)
			}
			fmt.Fprintln(stdout)
		}
	}
	return nil
}
