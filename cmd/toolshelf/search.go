package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/search"
)

// runSearch implements `toolshelf search --catalog FILE... [--names a,b]
// [--limit N] [--explain TOOL] [--json] QUERY...`: it prints exactly what
// the model would get from tool_search over the catalogs' deferred tools
// (the catalog policy: an MCP server's tools deferred, built-ins
// resident), and with --json the ranked hits and their scores as well.
// --explain TOOL prints instead how TOOL scores for the query, term by
// term and field by field. Exit status 1 means the call came back as a
// validation error or matched nothing.
func runSearch(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	var catalogs files
	fs.Var(&catalogs, "catalog", "catalog `FILE` (repeatable; more files may follow)")
	names := fs.String("names", "", "exact tool `NAMES` to load, comma-separated (instead of queries)")
	limit := fs.Int("limit", 0, "`N` results of a query search (5 when not given, at most 10)")
	explain := fs.String("explain", "", "show how the tool `NAME` scores for the query, term by term and field by field")
	asJSON := fs.Bool("json", false, "print JSON")
	server := fs.String("server", "", "the server `NAME` of a --catalog that is an MCP tools/list (it names none)")
	rules := fs.String("rules", "", rulesUsage)
	mcpConfig := fs.String("mcp-config", "", "an mcpServers `FILE`: its stdio servers started and their tools added (deferred), each under its entry's name")
	queries, err := parse(fs, args)
	if err != nil {
		return parseFailed(fs, err, stdout, stderr)
	}
	switch {
	case len(catalogs) == 0 && *mcpConfig == "":
		return fail(stderr, "toolshelf search: give at least one --catalog FILE (or --mcp-config FILE)")
	case *names == "" && len(queries) == 0:
		return fail(stderr, "toolshelf search: give QUERY words or --names a,b")
	case *names != "" && len(queries) > 0:
		return fail(stderr, "toolshelf search: give either QUERY words or --names, not both")
	case *explain != "" && len(queries) == 0:
		return fail(stderr, "toolshelf search: --explain needs QUERY words")
	}
	s, err := searcher(catalogs, *server, *rules, *mcpConfig, stderr)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	if flagSet(fs, "limit") && (*limit < 1 || *limit > s.Options().ResultLimit) {
		return fail(stderr, "toolshelf search: --limit %d: want 1 to %d results", *limit, s.Options().ResultLimit)
	}
	if *explain != "" {
		return explainSearch(stdout, stderr, s, queries, *explain, *asJSON)
	}
	return callSearch(stdout, stderr, s, queries, *names, *limit, *asJSON)
}

// searcher plans the catalogs under the rules file (none when empty) and
// returns the search over their deferred tools; its errors are the whole
// message for the user.
func searcher(catalogs []string, server, rules, mcpConfig string, stderr io.Writer) (*toolsearch.Searcher, error) {
	reg, err := loadCatalogs(catalogs, server)
	if err != nil {
		return nil, fmt.Errorf("toolshelf search: %v", err)
	}
	if mcpConfig != "" {
		if _, _, err := addMCPConfig(reg, mcpConfig, mcpConfigTimeout); err != nil {
			return nil, fmt.Errorf("toolshelf search: %v", err)
		}
	}
	rs, err := readRuleSet(rules)
	if err != nil {
		return nil, fmt.Errorf("toolshelf search: %v", err)
	}
	rs.warnUnmatched(stderr, "search", reg.Snapshot())
	plan, err := rs.policy().Plan(reg.Snapshot(), deferral.View{Tier: registry.TierFull})
	if err != nil {
		return nil, fmt.Errorf("toolshelf search: %v", err)
	}
	if len(plan.Deferred()) == 0 {
		return nil, errors.New("toolshelf search: no tool of the catalogs is deferred, so tool_search has nothing to find: an MCP server's tools are deferred, built-in tools resident; pass --rules FILE with Defer(pattern) to defer built-ins")
	}
	s, err := toolsearch.New(plan, nil)
	if err != nil {
		return nil, fmt.Errorf("toolshelf search: %v", err)
	}
	return s, nil
}

// explainSearch prints how the tool scores for the queries (--explain).
func explainSearch(stdout, stderr io.Writer, s *toolsearch.Searcher, queries []string, tool string, asJSON bool) int {
	e, err := s.Explain(context.Background(), queries, tool, toolsearch.Scope{})
	if err != nil {
		return fail(stderr, "toolshelf search: %v", err)
	}
	if asJSON {
		err = writeJSON(stdout, e)
	} else {
		err = e.WriteText(stdout)
	}
	if err != nil {
		return fail(stderr, "toolshelf search: %v", err)
	}
	return exitOK
}

// callSearch prints what tool_search answers the model for the queries
// or the comma-separated names, and with asJSON the ranked hits as well.
func callSearch(stdout, stderr io.Writer, s *toolsearch.Searcher, queries []string, names string, limit int, asJSON bool) int {
	call := map[string]any{}
	if names != "" {
		call["tool_names"] = strings.Split(names, ",")
	} else {
		call["queries"] = queries
	}
	if limit != 0 {
		call["limit"] = limit
	}
	raw, err := jsonx.Marshal(call)
	if err != nil {
		return fail(stderr, "toolshelf search: %v", err)
	}
	ctx := context.Background()
	res := s.Call(ctx, json.RawMessage(raw), toolsearch.Scope{Loaded: toolsearch.NewLoadedSet()})
	var hits []search.Hit
	if len(queries) > 0 {
		n := limit
		if n <= 0 || n > s.Options().ResultLimit {
			n = s.Options().MaxResults
		}
		if hits, err = s.Search(ctx, queries, n, toolsearch.Scope{}); err != nil {
			return fail(stderr, "toolshelf search: %v", err)
		}
	}
	status := exitOK
	if res.IsError || strings.HasPrefix(res.Text, "Nothing matched") {
		status = exitFinding
	}
	if asJSON {
		if hits == nil {
			hits = []search.Hit{}
		}
		out := struct {
			Text    string       `json:"text"`
			IsError bool         `json:"is_error"`
			Hits    []search.Hit `json:"hits"`
		}{res.Text, res.IsError, hits}
		if err := writeJSON(stdout, out); err != nil {
			return fail(stderr, "toolshelf search: %v", err)
		}
		return status
	}
	fmt.Fprintln(stdout, res.Text)
	return status
}
