package execute

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/toolshelf/toolshelf/internal/jsonx"
)

// scanBounds checks size, UTF-8 and nesting depth over the raw
// bytes, before anything parses them recursively. It does not check syntax.
func scanBounds(b []byte, maxBytes, maxDepth int) string {
	if len(b) > maxBytes {
		return fmt.Sprintf("the arguments are %d bytes, over the limit of %d; send less data per call (split the work into several calls)", len(b), maxBytes)
	}
	if !utf8.Valid(b) {
		// Quoting such bytes back would put invalid UTF-8 into the result,
		// and from there into the next request body.
		return "the arguments are not valid UTF-8; send them as JSON text"
	}
	if jsonx.DeeperThan(b, maxDepth) {
		return fmt.Sprintf("the arguments nest deeper than %d levels of objects and arrays; flatten them", maxDepth)
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
			return "params is null; send a JSON object ({} when the tool needs no params)"
		}
	case '"':
		var s string
		if json.Unmarshal(p, &s) == nil {
			if t := strings.TrimSpace(s); strings.HasPrefix(t, "{") && json.Valid([]byte(t)) {
				return "params is a string holding JSON; send the object itself, not a string: " + clip(t, 200) + " without the surrounding quotes"
			}
		}
		return "params is a string; send a JSON object"
	case '[':
		return "params is an array; send a JSON object whose keys are the tool's parameter names"
	}
	if !json.Valid(p) {
		return "arguments are not valid JSON; send a JSON object"
	}
	return "params is a " + jsonKind(p) + "; send a JSON object whose keys are the tool's parameter names"
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
		return wrapped{fatal: "defer_execute needs arguments"}
	}
	if a[0] != '{' {
		if a[0] == '"' {
			var s string
			if json.Unmarshal(a, &s) == nil && strings.HasPrefix(strings.TrimSpace(s), "{") {
				return unwrapMore(unwrap([]byte(s)), "the arguments are a string holding JSON; send the object itself")
			}
		}
		if !json.Valid(a) {
			return wrapped{fatal: "the arguments are not valid JSON"}
		}
		return wrapped{fatal: "the arguments are a " + jsonKind(a) + ", not an object"}
	}
	ms, err := jsonx.Members(a)
	if err != nil {
		return wrapped{fatal: "the arguments are not a valid JSON object (" + clip(err.Error(), 120) + ")"}
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
		return wrapped{fatal: `"tool_name" is missing`}
	}
	if err := json.Unmarshal(rawName, &w.target); err != nil || w.target == "" {
		return wrapped{fatal: `"tool_name" must be a non-empty string: the exact name of a tool`}
	}
	if len(extra) > 0 {
		if w.params == nil {
			// The common slip: the tool's params written next to tool_name.
			w.params = jsonx.AppendObject(nil, withoutKey(ms, "tool_name"))
			fixed := jsonx.AppendObject(nil, []jsonx.Member{{Key: "tool_name", Value: rawName}, {Key: "params", Value: w.params}})
			w.problem = fmt.Sprintf("the tool's params must go inside \"params\", not next to \"tool_name\" (found %s); send defer_execute %s", quoteKeys(extra), clip(string(fixed), 300))
		} else {
			w.problem = fmt.Sprintf("unexpected keys %s next to \"tool_name\" and \"params\"; put every parameter inside \"params\"", quoteKeys(extra))
		}
	}
	return w
}

func unwrapMore(w wrapped, why string) wrapped {
	switch {
	case w.fatal != "":
		w.fatal = why + "; and " + w.fatal
	case w.problem != "":
		w.problem = why + "; and " + w.problem
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
