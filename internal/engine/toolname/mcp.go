package toolname

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

// MCPPrefix starts the exposed name of every MCP tool: mcp__<server>__<tool>.
const MCPPrefix = "mcp__"

// Names of the two fixed groups of a registry. MCP servers may not use them.
const (
	BuiltinGroup   = "builtin"
	SelfBuiltGroup = "self-built"
)

// MCPName returns the exposed name of tool on server: mcp__<server>__<tool>,
// or, when that breaks the providers' name rule (over 64 characters, or a
// character outside [A-Za-z0-9_-] such as the "." MCP allows), its alias:
// the name with every other character as "_", cut to 55 bytes, then "_"
// and 8 hex digits of the SHA-256 of the full name. The alias is what the
// model sees and calls; the tool keeps the server's name in OriginalName,
// which is what the server is called with.
func MCPName(server, tool string) string {
	name := MCPPrefix + server + "__" + tool
	if Valid(name) {
		return name
	}
	return Alias(name)
}

// aliasKeep is how much of a name an alias keeps readable: with "_" and 8
// hex digits it makes [MaxLen].
const aliasKeep = MaxLen - 9

// Alias returns the model-facing alias of a name that breaks the
// providers' name rule: a readable prefix (characters outside
// [A-Za-z0-9_-] written as "_", at most 55 bytes) then "_" and the first 8
// hex digits of the SHA-256 of name. The same name always gives the same
// alias, and two names that read alike ("a.b", "a_b") do not share one.
func Alias(name string) string {
	b := make([]byte, 0, MaxLen)
	for _, r := range name {
		if len(b) == aliasKeep {
			break
		}
		if r < utf8.RuneSelf && Byte(byte(r)) {
			b = append(b, byte(r))
		} else {
			b = append(b, '_')
		}
	}
	sum := sha256.Sum256([]byte(name))
	b = append(b, '_')
	return string(hex.AppendEncode(b, sum[:4]))
}

// SplitMCP splits an exposed MCP name into server and tool. It reports
// false for names without the mcp__ prefix. Server names are canonical (see
// [CanonicalGroup]: no "__", no leading or trailing "_"), so the first
// "__" after the prefix ends the server and a name splits one way only.
func SplitMCP(name string) (server, tool string, ok bool) {
	rest, ok := strings.CutPrefix(name, MCPPrefix)
	if !ok {
		return "", "", false
	}
	server, tool, ok = strings.Cut(rest, "__")
	if !ok || server == "" || tool == "" {
		return "", "", false
	}
	return server, tool, true
}

// CanonicalGroup reports whether name is a canonical MCP server name:
// the tool alphabet, no "__" and no "_" at either end. With these, the
// exposed name mcp__<server>__<tool> splits one way only: a server
// "github_" would expose "mcp__github___x", which Allow(mcp__github__*)
// matches and [SplitMCP] reads as server "github", tool "_x".
func CanonicalGroup(name string) bool {
	return Valid(name) && !strings.Contains(name, "__") && name[0] != '_' && name[len(name)-1] != '_'
}
