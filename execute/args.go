package execute

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
)

// scanBounds checks size, UTF-8 and nesting depth over the raw
// bytes, before anything parses them recursively. It does not check syntax.
func scanBounds(b []byte, maxBytes, maxDepth int) string {
	if len(b) > maxBytes {
		return problemTooLarge(len(b), maxBytes)
	}
	if !utf8.Valid(b) {
		// Quoting such bytes back would put invalid UTF-8 into the result,
		// and from there into the next request body.
		return problemNotUTF8
	}
	if jsonx.DeeperThan(b, maxDepth) {
		return problemTooDeep(maxDepth)
	}
	return ""
}

// shapeProblem describes params that are not a JSON object, in words that
// say how to fix them; "" means params is an object (or absent).
func shapeProblem(params []byte) string {
	p := bytes.TrimSpace(params)
	if len(p) == 0 {
		return ""
	}
	switch p[0] {
	case '{':
		// Syntax is checked by parseObject, which parses params once.
		return ""
	case 'n':
		if string(p) == "null" { // "not json", "nul" ... are not null
			return problemParamsNull
		}
	case '"':
		var s string
		if json.Unmarshal(p, &s) == nil {
			if t := strings.TrimSpace(s); strings.HasPrefix(t, "{") && json.Valid([]byte(t)) {
				return problemParamsJSONString(t)
			}
		}
		return problemParamsString
	case '[':
		return problemParamsArray
	}
	if !json.Valid(p) {
		return problemParamsNotJSON
	}
	return problemParamsKind(jsonKind(p))
}

func jsonKind(p []byte) string {
	switch p[0] {
	case 't', 'f':
		return "boolean"
	case '"':
		return "string"
	case '[':
		return "array"
	case '{':
		return "object"
	case 'n':
		return "null"
	}
	return "number"
}

// wrapped is what the defer_execute arguments hold.
type wrapped struct {
	target  string          // tool_name, "" when unusable
	params  json.RawMessage // params, nil when absent
	problem string          // what is wrong with the wrapper's shape, for a named target
	fatal   string          // what is wrong when no target can be named
}

// unwrap reads {"tool_name": "...", "params": {...}}.
func unwrap(args []byte) wrapped {
	a := bytes.TrimSpace(args)
	if len(a) == 0 || string(a) == "null" {
		return wrapped{fatal: problemWrapperEmpty}
	}
	if a[0] != '{' {
		if a[0] == '"' {
			var s string
			if json.Unmarshal(a, &s) == nil && strings.HasPrefix(strings.TrimSpace(s), "{") {
				return unwrapMore(unwrap([]byte(s)), problemWrapperJSONString)
			}
		}
		if !json.Valid(a) {
			return wrapped{fatal: problemWrapperNotJSON}
		}
		return wrapped{fatal: problemWrapperKind(jsonKind(a))}
	}
	ms, err := jsonx.Members(a)
	if err != nil {
		return wrapped{fatal: problemWrapperBadObject(err)}
	}
	var w wrapped
	var extra []string
	rawName := jsonx.Get(ms, "tool_name")
	for _, m := range ms {
		switch m.Key {
		case "tool_name":
		case "params":
			w.params = m.Value
		default:
			extra = append(extra, m.Key)
		}
	}
	if rawName == nil {
		return wrapped{fatal: problemNoToolName}
	}
	if err := json.Unmarshal(rawName, &w.target); err != nil || w.target == "" {
		return wrapped{fatal: problemBadToolName}
	}
	if len(extra) > 0 {
		if w.params == nil {
			// The common slip: the tool's params written next to tool_name.
			w.params = jsonx.AppendObject(nil, withoutKey(ms, "tool_name"))
			fixed := jsonx.AppendObject(nil, []jsonx.Member{{Key: "tool_name", Value: rawName}, {Key: "params", Value: w.params}})
			w.problem = problemParamsBesideName(extra, fixed)
		} else {
			w.problem = problemExtraKeys(extra)
		}
	}
	return w
}

func unwrapMore(w wrapped, why string) wrapped {
	switch {
	case w.fatal != "":
		w.fatal = problemAnd(why, w.fatal)
	case w.problem != "":
		w.problem = problemAnd(why, w.problem)
	default:
		w.problem = why
	}
	return w
}

func withoutKey(ms []jsonx.Member, key string) []jsonx.Member {
	out := make([]jsonx.Member, 0, len(ms))
	for _, m := range ms {
		if m.Key != key {
			out = append(out, m)
		}
	}
	return out
}

func quoteKeys(keys []string) string {
	var b strings.Builder
	for i, k := range keys {
		if i == 5 {
			fmt.Fprintf(&b, " and %d more", len(keys)-5)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", clip(k, 40))
	}
	return b.String()
}

// clip bounds untrusted text for a message, at a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return cutRunes(s, n) + "..."
}

// cutRunes returns the longest prefix of s of at most n bytes that ends at
// a rune boundary.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
