// Package mcpconfig reads mcpServers files, the configuration Claude
// Desktop, Claude Code, Cursor and others share:
//
//	{"mcpServers": {
//	  "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"TOKEN": "${GITHUB_TOKEN}"}},
//	  "web":    {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${KEY:-none}"}}
//	}}
//
// It is the project's one reader of that format: integration/mcp's
// LoadConfig and ParseConfig and the toolshelf command's --mcp-config read
// a file through [Parse], so what a reviewer of the file reads, what the
// command-line tool measures and what a harness runs are the same servers.
//
// A file is untrusted input and is read strictly, because JSON readers
// disagree where the format is loose: a key given twice in one object, at
// any depth and in any spelling (another case, "comm\u0061nd"), is an
// error naming both positions (encoding/json keeps the last of two
// keys and matches struct fields without regard to case, so
// {"command": "true", "Command": "sh"} would run sh where a reviewer read
// true); keys are case-sensitive, and an unknown key, a case variant of a
// known one included, is an error; a file is at most 1 MiB. ${VAR} and
// ${VAR:-default} expand in command, args, env, cwd, url and headers, as in
// Claude Code; a variable that is unset and has no default is an error.
//
// Every error wraps [ErrInvalid] and names the server and the field. The
// package starts nothing and reaches no network: it returns [Server]
// values, and its users start them.
package mcpconfig
