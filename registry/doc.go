// Package registry holds the tools a harness can offer a model and the groups
// they come from.
//
// A [Tool] is plain data: a name, a description, an input schema, annotations,
// a tier, a three-state [DeferLoading] flag and a [Handler]. Every tool belongs
// to a [Group]: the built-in group (the harness's own tools), one group per MCP
// server (with its own defaults, as Anthropic's mcp_toolset default_config and
// configs), or the self-built group (tools the model wrote at run time).
//
// A [Registry] is the mutable, concurrency-safe collection. Each change bumps
// its version; [Registry.Snapshot] returns an immutable [Snapshot] whose tools
// are ordered by (group, name) — built-in first, then MCP servers by name, then
// self-built — so nothing downstream ever depends on registration order or map
// iteration.
//
// [ParseCatalog] imports tools as they are found in the wild: an MCP tools/list
// result, OpenAI Chat Completions or Responses tools arrays, an Anthropic tools
// array, or a catalog file ({"server", "description", "tools"}).
//
// Every schema is checked once, when its tool enters the registry: it must
// stay within the bounds of docs/reliability.md and hold no reference cycle
// that would make validation recurse forever. [Registry.Register] rejects a
// bad tool by name; imports leave it out and report it ([Registry.Rejected])
// unless [Options.StrictImport] is set. Schemas are validated in JSON Schema
// 2020-12 terms, read on a copy from whatever draft they were written in,
// with ECMA-262 patterns translated to RE2; a keyword that cannot be
// validated exactly is left out of validation and reported as a [Warning]
// ([Tool.Warnings], [Registry.Warnings]), while
// the provider is sent the schema as written.
//
// The registry decides nothing about visibility; that is package deferral's job.
// It never iterates a map into output.
//
// API: a harness builds a [Registry] ([New], [Options]), registers [Tool]s
// and [Group]s, imports catalogs ([ParseCatalog], [LoadCatalog],
// [FormatMCP]), reads [Registry.Rejected], and hands [Registry.Snapshot] to
// request. It matches three sentinel errors ([ErrDuplicateTool],
// [ErrDuplicateGroup], [ErrNoServer]); every error's message starts with
// "registry:". The naming rules (the providers' name rule, MCP exposed
// names and their aliases, canonical server names) are the same in every
// package of the library; a harness learns a tool's exposed name from
// [Tool.Name] after registration, and checks a server's name by adding
// its group.
package registry
