package main

// The command splitter and group naming of the core CLI's stdio lister
// (internal/engine/mcpstdio), copied: the integration module uses the core's
// public API only (internal/cmd/apicount TestIntegrationPublicOnly), and
// `toolshelf budget --mcp-stdio LINE` and `toolshelf-mcp catalog --mcp-stdio
// LINE` must read a line the same way (TestSplitCommandAsCore checks it).

import (
	"errors"
	"fmt"
	"strings"
)

// errCommand reports a --mcp-stdio line that cannot be run without a shell.
var errCommand = errors.New("bad command line")

// splitCommand splits a command line into argv the way a POSIX shell splits
// words, without running one: white space separates words; a backslash
// quotes the next character (backslash-newline is removed); single quotes
// keep everything up to the next single quote literally; double quotes keep
// everything but `\"`, `\\`, `\$`, "\`" and backslash-newline, whose
// backslash is removed. A pair of quotes with nothing between them is an
// empty word.
//
// Shell syntax that would need a shell — an unquoted |, &, ;, <, >, $ or
// backtick, $ or backtick inside double quotes, or a word starting with an
// unquoted ~ — is an error wrapping errCommand rather than a literal
// character, so that `cd x && node s.js` or `node ~/s.js` fails here with a
// reason instead of starting the wrong program. Run `sh -c '...'` when a
// shell is what you want.
func splitCommand(line string) ([]string, error) {
	var (
		args []string
		cur  strings.Builder
		have bool // a word is open (it may be empty: "")
	)
	bad := func(format string, a ...any) ([]string, error) {
		return nil, fmt.Errorf("%w: %q: %s", errCommand, line, fmt.Sprintf(format, a...))
	}
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\\':
			if i+1 == len(rs) {
				return bad("ends in a backslash that quotes nothing")
			}
			i++
			if rs[i] != '\n' {
				cur.WriteRune(rs[i])
				have = true
			}
		case r == '\'':
			end := indexRune(rs, i+1, '\'')
			if end < 0 {
				return bad("unterminated ' quote")
			}
			cur.WriteString(string(rs[i+1 : end]))
			have, i = true, end
		case r == '"':
			have = true
			for i++; ; i++ {
				if i == len(rs) {
					return bad(`unterminated " quote`)
				}
				c := rs[i]
				if c == '"' {
					break
				}
				if c == '$' || c == '`' {
					return bad("%c inside double quotes would be expanded by a shell, and none is run: use single quotes, or sh -c '...'", c)
				}
				if c == '\\' && i+1 < len(rs) && strings.ContainsRune("\"\\$`\n", rs[i+1]) {
					i++
					if rs[i] != '\n' {
						cur.WriteRune(rs[i])
					}
					continue
				}
				cur.WriteRune(c)
			}
		case r == ' ' || r == '\t' || r == '\n':
			if have {
				args = append(args, cur.String())
				cur.Reset()
				have = false
			}
		case strings.ContainsRune("|&;<>$`", r):
			return bad("%c is shell syntax and no shell is run: quote it to pass it literally, or run sh -c '...'", r)
		case r == '~' && !have:
			return bad("~ is expanded by a shell and none is run: write the path out")
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if have {
		args = append(args, cur.String())
	}
	if len(args) == 0 {
		return nil, fmt.Errorf("%w: empty command", errCommand)
	}
	return args, nil
}

func indexRune(rs []rune, from int, r rune) int {
	for i := from; i < len(rs); i++ {
		if rs[i] == r {
			return i
		}
	}
	return -1
}

// maxgroupName bounds a derived group name, leaving room in the 64-byte
// exposed name mcp__<group>__<tool> for the tool's own name.
const maxgroupName = 24

// groupName turns a serverInfo name into a registry group name: the part
// after the last "/" (npm-style names such as "mcp-servers/everything" give
// "everything"), every byte outside [a-zA-Z0-9_-] replaced by "-", runs of
// "-" and "_" collapsed to their first byte (a group name may not contain
// "__"), trimmed of "-" and "_" at both ends, and cut to 24 bytes. A name
// that comes out empty, or as one of the registry's own groups ("builtin",
// "self-built"), gives "server".
func groupName(serverName string) string {
	s := strings.TrimSpace(serverName)
	if i := strings.LastIndexByte(s, '/'); i >= 0 && strings.TrimSpace(s[i+1:]) != "" {
		s = s[i+1:]
	}
	var b strings.Builder
	var prev byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			c = '-'
		}
		if (c == '-' || c == '_') && (prev == '-' || prev == '_') {
			continue
		}
		b.WriteByte(c)
		prev = c
	}
	out := strings.Trim(b.String(), "-_")
	if len(out) > maxgroupName {
		out = strings.TrimRight(out[:maxgroupName], "-_")
	}
	switch out {
	case "", "builtin", "self-built":
		return "server"
	}
	return out
}
