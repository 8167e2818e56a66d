// Package mcp connects a toolshelf registry to live MCP servers with the
// official github.com/modelcontextprotocol/go-sdk client, over stdio (a
// command) or streamable HTTP.
//
// A [Manager] owns the connections. Each server becomes one registry group
// (named after the server, described by the caller or by the server's own
// initialize result) whose tools are exposed as mcp__<server>__<tool>. Every
// tool's [registry.Handler] forwards the call to the server's tools/call, so a
// call reaches the server only through the execute dispatcher: validation,
// permission and hooks apply to MCP tools exactly as to built-in ones.
//
// Servers are late and flaky, and the Manager is built for that:
//   - a server still connecting is listed by [Manager.Pending], which a
//     session passes to tool_search as request.Config.Pending;
//   - a server that disconnects keeps its tools in the registry, and their
//     handlers answer a model-facing "server <x> unavailable, retry later"
//     result (never a Go error that ends the turn) while a reconnect starts;
//   - a reconnect (or a tools/list_changed notification) that lists the same
//     tools leaves the registry untouched, so no prefix byte can change; one
//     that lists different tools replaces the group with
//     [registry.Registry.ReplaceGroup] and reports a [Change] through
//     [Options.OnToolsChanged];
//   - sessions that [Manager.Follow] it adopt every change as it happens
//     (request.Session.Sync): a late server's tools are callable in the
//     session that was waiting for them, removed ones answer as removed,
//     changed ones stay pinned until the harness approves.
//
// [Manager.Start] (background) and [Manager.Connect] (waits) take one
// server or all of an mcpServers file ([LoadConfig], [ParseConfig]). A
// server's state is what [Manager.Pending] and [Manager.Err] say:
// connecting while pending, unavailable while Err is not nil, else ready.
// A stdio server that fails to start says why: the error holds a
// [StartError] with its exit status and the tail of its stderr (an npx
// server's npm 404, say); [Server.Stderr] receives the whole stderr.
//
// The package lives in the nested integration module so that the core
// library never imports the go-sdk.
package mcp
