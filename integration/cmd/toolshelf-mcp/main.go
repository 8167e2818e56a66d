// Command toolshelf-mcp writes the catalog file of a live MCP server, for
// `toolshelf budget --catalog` (and every other toolshelf command) to read.
// It lives in the integration module because it reaches streamable HTTP
// servers with the official go-sdk, which the core library and
// cmd/toolshelf never import.
//
// Usage:
//
//	toolshelf-mcp catalog --mcp-http http://localhost:3001/mcp --name web -o web.tools.json
//	toolshelf-mcp catalog --mcp-stdio 'npx -y @modelcontextprotocol/server-everything stdio' -o everything.tools.json
//	toolshelf budget --catalog web.tools.json
//
// There is one budget command, `toolshelf budget`. Both transports reach
// the server with the go-sdk client through integration/mcp's Manager — the
// public path toolshelf-gateway takes too — so the command imports none of
// the core's internal packages. --mcp-stdio splits its line exactly as
// `toolshelf budget --mcp-stdio` does (shell-style quoting, no shell) and
// lists the same tools; the go-sdk's decoding sorts each schema's keys,
// where the core lister keeps the server's order, which moves a token count
// by a token or two. The file is {"server", "description", "tools": [MCP
// tools]}: the group name (--name; for stdio the server's serverInfo name
// when empty, for HTTP "server"), the group description (--description,
// else the server's instructions or serverInfo), and the tools as listed,
// each marked "defer_loading": true (unless --resident): the question asked
// of a live server is what deferring it would save, so `toolshelf budget
// --catalog FILE` gives the account `toolshelf budget --mcp-stdio` gives
// for the same server.
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

var errUsage = errors.New("usage: toolshelf-mcp catalog (--mcp-stdio 'COMMAND ARGS' | --mcp-http URL) [--name NAME] [--description TEXT] [--timeout 30s] [--resident] [-o FILE]; measure the file with toolshelf budget --catalog FILE")

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "catalog" {
		return errUsage
	}
	fs := flag.NewFlagSet("catalog", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o catalogOptions
	fs.StringVar(&o.stdio, "mcp-stdio", "", "command line of a stdio MCP server (shell quoting, no shell)")
	fs.StringVar(&o.url, "mcp-http", "", "endpoint of a streamable HTTP MCP server")
	fs.StringVar(&o.name, "name", "", "the server's group name: tools are exposed as mcp__<name>__<tool> (default: from the serverInfo name for stdio, \"server\" for HTTP)")
	fs.StringVar(&o.description, "description", "", "the group's description (default: the server's instructions or serverInfo)")
	fs.StringVar(&o.out, "o", "", "write the catalog to this file instead of standard output")
	fs.DurationVar(&o.timeout, "timeout", 30*time.Second, "bound on connecting and listing, as toolshelf budget --timeout")
	fs.BoolVar(&o.resident, "resident", false, "leave the tools unmarked (default: each marked \"defer_loading\": true, as budget --mcp-stdio defers a live server)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if o.timeout <= 0 {
		return fmt.Errorf("%w: --timeout %s: must be positive", errUsage, o.timeout)
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	b, err := catalog(ctx, o)
	if err != nil {
		return err
	}
	if o.out != "" {
		return os.WriteFile(o.out, b, 0o644)
	}
	_, err = stdout.Write(b)
	return err
}
