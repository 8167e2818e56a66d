package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/toolshelf/toolshelf/registry"
)

// synopses are each command's usage line and what it does.
var synopses = map[string]string{
	"budget": "toolshelf budget --catalog FILE... [--server NAME] [--rules FILE] [--window N] [--encoding NAME | --model NAME] [--json] [--color]\n" +
		"       [--mcp-stdio 'COMMAND ARGS' [--name NAME]]... [--mcp-config FILE] [--timeout 30s] [--usage FILE --turns N [--round-trip N]]\n\n" +
		"The savings account of deferral and the context bar, of catalogs or of a live stdio MCP server.",
	"request": "toolshelf request --catalog FILE... [--server NAME] [--mcp-config FILE] --provider openai-chat|openai-responses|anthropic --model NAME\n" +
		"       [--rules FILE] [--system TEXT] (--user TEXT | --transcript FILE) [--max-tokens N] [--tool-search MODE] [--json] [--check]\n" +
		"       toolshelf request --check --body FILE --provider PROVIDER\n\n" +
		"The exact request body BuildRequest returns; --check checks it (or --body FILE) against the provider's rule book.",
	"diff":   "toolshelf diff A.json B.json [--json]\n\nThe first byte where two request bodies differ, and its JSON path.",
	"search": "toolshelf search --catalog FILE... [--server NAME] [--mcp-config FILE] [--rules FILE] [--names NAMES] [--limit N] [--explain NAME] [--json] QUERY...\n\nWhat tool_search answers over the catalogs' deferred tools.",
	"misses": "toolshelf misses --provider PROVIDER [--ttl D] [--tolerance N] [--json] RUN.json\n\nEach cache miss of a recorded run and its cause. RUN.json is a JSON array of requests {\"at\": RFC 3339 time, \"body\": the request body, \"reply\": the response body, or \"reply_stream\": its server-sent events} compared body with body, or the lines of a budget.Ledger (json of Ledger.Turns) whose misses are printed as the ledger explained them. Exit 1 when a request missed.",
	"eval":   "toolshelf eval --catalog FILE... [--server NAME] --queries FILE.jsonl [--min-recall1 X] [--min-recall5 X] [--baseline NAME] [--sizes N] [--json]\n\nrecall@1, recall@5 and MRR of tool_search on a query set (every tool deferred); rows with \"expect\": [] count how often it says no tool fits (\"abstention\" in --json).",
}

// policyHelp is the one default policy of the commands that read catalogs
// into a session: request, search and budget.
const policyHelp = `Catalog policy (request, search, budget): the tools of an MCP server — a catalog file
with "server", a tools/list given --server NAME, a --mcp-stdio server — are deferred;
built-in tools (OpenAI or Anthropic tools arrays, catalog files with "catalog") stay
resident unless a tool is marked "defer_loading": true. --rules FILE adds
Defer(pattern) / NoDefer(pattern) rules on top (NoDefer wins), and Allow / Ask / Deny(pattern)
permission rules (a tool every call of which Deny refuses is left out, as in a harness); a
rule that selects no tool is reported, with the names close to it. An MCP tools/list names
no server: pass --server NAME with it.`

// parseFailed answers a flag parse error: -h or --help prints the
// command's usage, flags and (where it applies) the catalog policy to
// stdout and exits 0; anything else is a usage error.
func parseFailed(fs *flag.FlagSet, err error, stdout, stderr io.Writer) int {
	if !errors.Is(err, flag.ErrHelp) {
		return fail(stderr, "toolshelf %s: %v", fs.Name(), err)
	}
	fmt.Fprintf(stdout, "usage: %s\n\nflags:\n", synopses[fs.Name()])
	fs.SetOutput(stdout)
	fs.PrintDefaults()
	switch fs.Name() {
	case "request", "search", "budget":
		fmt.Fprintf(stdout, "\n%s\n", policyHelp)
	}
	return exitOK
}

// loadCatalogs imports catalog files, in any shape registry.ParseCatalog
// reads, into a new registry under the catalog policy: an MCP server's
// group defers by default. server names the server of a tools/list that
// names none; such a list without it is an error. An error names the file.
// Imports are strict: a measurement over a catalog that silently lost a
// tool would mislead.
func loadCatalogs(files []string, server string) (*registry.Registry, error) {
	reg := registry.New(&registry.Options{StrictImport: true})
	unnamed := 0
	for _, f := range files {
		c, err := registry.LoadCatalog(f)
		if err != nil {
			return nil, nameFile(f, err)
		}
		if len(c.Rejected) > 0 { // strict, as the import below
			return nil, nameFile(f, c.Rejected[0].Err)
		}
		if c.Server == "" && c.Format == registry.FormatMCP {
			if server == "" {
				return nil, fmt.Errorf("%s: an MCP tools/list names no server, so its tools cannot be told from built-in ones: pass --server NAME (its tools become mcp__NAME__<tool>)", f)
			}
			if unnamed++; unnamed > 1 {
				return nil, fmt.Errorf("%s: --server %s names one server, and another tools/list already took it: give each tools/list its own run, or a catalog file with \"server\"", f, server)
			}
			c.Server = server
		}
		if c.Server != "" {
			err := reg.AddGroup(registry.Group{Name: c.Server, Description: c.Description, DefaultDefer: registry.DeferTrue})
			if err != nil && !errors.Is(err, registry.ErrDuplicateGroup) {
				return nil, nameFile(f, err)
			}
		}
		if err := reg.Import(c); err != nil {
			return nil, nameFile(f, err)
		}
	}
	if server != "" && unnamed == 0 {
		return nil, fmt.Errorf("--server %s: no catalog is a tools/list without a server name (catalog files name theirs with \"server\")", server)
	}
	return reg, nil
}
