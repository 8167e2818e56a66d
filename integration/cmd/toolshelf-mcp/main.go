// Command toolshelf-mcp measures live MCP servers with toolshelf's budget
// account. It lives in the integration module because it imports the MCP
// go-sdk, which the core library and cmd/toolshelf never import.
//
// Usage:
//
//	toolshelf-mcp budget --mcp-stdio 'npx -y @modelcontextprotocol/server-everything stdio'
//	toolshelf-mcp budget --mcp-http http://localhost:3001/mcp --name web --json
//	toolshelf-mcp budget --mcp-stdio '...' --catalog-out server.tools.json
//
// budget connects to one server, imports its tools into a registry as the
// group --name, plans them with every tool deferred (or --default), and
// prints the savings account: the definitions' size resident, the index that
// replaces them, and the saving per turn. --catalog-out also writes the
// server's tools as a catalog file that `toolshelf budget --catalog` reads.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "toolshelf-mcp:", err)
		if errors.Is(err, flag.ErrHelp) || errors.Is(err, errUsage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

var errUsage = errors.New("usage: toolshelf-mcp budget (--mcp-stdio 'COMMAND ARGS' | --mcp-http URL) [flags]")

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "budget" {
		return errUsage
	}
	fs := flag.NewFlagSet("budget", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o budgetOptions
	fs.StringVar(&o.stdio, "mcp-stdio", "", "command line of a stdio MCP server (quotes group words)")
	fs.StringVar(&o.url, "mcp-http", "", "endpoint of a streamable HTTP MCP server")
	fs.StringVar(&o.name, "name", "server", "the server's group name: tools are exposed as mcp__<name>__<tool>")
	fs.StringVar(&o.description, "description", "", "the group's description (default: the server's instructions or serverInfo)")
	fs.StringVar(&o.defaultMode, "default", "defer", "deferral default: defer, resident or auto")
	fs.IntVar(&o.window, "window", 200000, "context window in tokens (auto default)")
	fs.StringVar(&o.encoding, "encoding", "o200k_base", "token encoding: o200k_base, cl100k_base or estimate")
	fs.BoolVar(&o.json, "json", false, "print the account as JSON")
	fs.StringVar(&o.catalogOut, "catalog-out", "", "also write the server's tools as a catalog file")
	fs.DurationVar(&o.timeout, "timeout", 60*time.Second, "bound on connecting and listing")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	return budgetCmd(ctx, o, stdout, stderr)
}
