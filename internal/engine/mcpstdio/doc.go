// Package mcpstdio lists the tools of a live MCP server over stdio, with no
// MCP SDK: just enough of the protocol for `toolshelf budget --mcp-stdio`.
//
// [List] starts the server's command (argv from [SplitCommand]; no shell is
// run) in its own process group and speaks newline-delimited JSON-RPC 2.0 on
// its stdin and stdout: initialize, notifications/initialized, then tools/list
// page by page through nextCursor. The server's notifications are ignored;
// its requests are answered (ping with an empty result, roots/list with no
// roots, anything else with "method not found") so that it never waits on
// us. Its stderr is kept, bounded, and quoted when something fails. When
// List returns the process group is gone, whatever happened.
//
// The tools come back as the server's own JSON bytes, members in the
// server's order, trimmed to what the registry reads (name, description,
// inputSchema, annotations): [Listing.Catalog] wraps them in a catalog file
// that registry.ParseCatalog imports with every schema's key order intact.
// (The go-sdk client decodes schemas into maps, which sorts their keys.)
//
// The package never calls a tool, and never keeps a connection: it is a
// measuring instrument, not a client. Live servers as registry groups, with
// reconnects, calls and streamable HTTP, are the integration module's
// integration/mcp.
package mcpstdio
