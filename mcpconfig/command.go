package mcpconfig

import (
	"errors"
	"fmt"
	"strings"
)

// SplitCommand splits a command line into argv the way a POSIX shell splits
// words, without running one: white space separates words; a backslash
// quotes the next character (backslash-newline is removed); single quotes
// keep everything up to the next single quote literally; double quotes keep
// everything but `\"`, `\\`, `\$`, "\`" and backslash-newline, whose
// backslash is removed. A pair of quotes with nothing between them is an
// empty word.
//
// Shell syntax that would need a shell — an unquoted |, &, ;, <, >, $ or
// backtick, $ or backtick inside double quotes, or a word starting with an
// unquoted ~ — is an error wrapping [ErrCommand] rather than a literal
// character, so that `cd x && node s.js` or `node ~/s.js` fails here with a
// reason instead of starting the wrong program. Run `sh -c '...'` when a
// shell is what you want.
func SplitCommand(line string) ([]string, error) {
	var (
		args []string
		cur  strings.Builder
		have bool // a word is open (it may be empty: "")
	)
	bad := func(format string, a ...any) ([]string, error) {
		return nil, fmt.Errorf("%w: %q: %s", ErrCommand, line, fmt.Sprintf(format, a...))
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
		return nil, fmt.Errorf("%w: empty command", ErrCommand)
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

// ErrCommand reports a command line that cannot be split or is empty.
var ErrCommand = errors.New("mcpconfig: bad command line")
