// Command toolshelf is a thin command-line tool over the toolshelf library:
// the savings account and context bar of a catalog (budget), the exact
// request body a session builds (request), where two request bodies part
// (diff), what tool_search answers (search) and how well it ranks (eval).
// Every command takes --json; the exit status is 0 (ok), 1 (a finding: over
// budget, bodies differ, a recall bar missed) or 2 (usage error or bad
// input). See README.md in this directory for every command, flag and
// --json key.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// Exit statuses.
const (
	exitOK      = 0
	exitFinding = 1
	exitUsage   = 2
)

const usage = `usage: toolshelf COMMAND [flags]

commands:
  budget --catalog FILE... [--server NAME] [--rules FILE] [--window N] [--encoding NAME | --model NAME] [--json]
         [--mcp-stdio 'COMMAND ARGS' [--name NAME]]... [--mcp-config FILE] [--timeout 30s]
         the savings account of deferral and the context bar (of catalogs, or of a live
         stdio MCP server it starts and lists)
  request --catalog FILE... [--server NAME] [--mcp-config FILE] --provider openai-chat|openai-responses|anthropic --model NAME
          [--rules FILE] [--system TEXT] (--user TEXT | --transcript FILE) [--max-tokens N] [--check] [--json]
         the exact request body BuildRequest returns (--max-tokens: default 4096, required by
         anthropic; --check: exit 1 if the body breaks the provider's rule book)
  diff A.json B.json [--json]
         the first byte where two request bodies differ, and its JSON path
  search --catalog FILE... [--server NAME] [--mcp-config FILE] [--rules FILE] [--names a,b] [--limit N] [--explain TOOL] [--json] QUERY...
         what tool_search answers over the catalogs' deferred tools;
         --explain: how TOOL scores for the query, term by term and field by field
  eval --catalog FILE... [--server NAME] --queries FILE.jsonl [--min-recall1 X] [--min-recall5 X]
       [--baseline bm25] [--sizes N] [--json]
         recall@1, recall@5 and MRR of tool_search on a query set (tune and check
         halves), with --baseline the same for plain BM25 as a second row
  misses --provider PROVIDER [--ttl D] [--tolerance N] [--json] RUN.json
         each cache miss of a recorded run and its cause: RUN.json is a JSON array of
         {at, body, reply | reply_stream} (exit 1 when a request missed), or a ledger's lines

catalogs (request, search, budget): an MCP server's tools are deferred, built-in tools resident,
--rules FILE changes that; an MCP tools/list names no server: pass --server NAME with it.
toolshelf COMMAND --help prints a command's flags.

exit status: 0 ok, 1 finding (over budget, bodies differ), 2 usage error or bad input`

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run executes one command line. It writes results to stdout only when the
// command succeeds, and a one-line error to stderr otherwise.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "budget":
		return runBudget(args[1:], stdout, stderr)
	case "diff":
		return runDiff(args[1:], stdout, stderr)
	case "request":
		return runRequest(args[1:], stdout, stderr)
	case "search":
		return runSearch(args[1:], stdout, stderr)
	case "eval":
		return runEval(args[1:], stdout, stderr)
	case "misses":
		return runMisses(args[1:], stdout, stderr)
	case "help", "-h", "--help", "-help":
		fmt.Fprintln(stdout, usage)
		return exitOK
	}
	return fail(stderr, "toolshelf: unknown command %q (want budget, request, diff, search, eval or misses; toolshelf help lists them)", args[0])
}

// fail writes a one-line error and returns the usage status.
func fail(stderr io.Writer, format string, a ...any) int {
	msg := fmt.Sprintf(format, a...)
	fmt.Fprintln(stderr, strings.ReplaceAll(msg, "\n", " "))
	return exitUsage
}

// writeJSON writes v indented, without HTML escaping, ending in a newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
