package execute

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Params are parsed once, by parseValue, into the value the validator sees.
// encoding/json would keep the last of two equal keys, where a first-wins
// reader of the same bytes (the handler's, the approver's) gets the first,
// and would read every number as float64, where the handler may decode
// 9007199254740993 exactly: the check would see other data than the code
// that acts on it. parseValue refuses duplicate keys and reads an integer
// literal as int64 or uint64, exactly; jsonschema-go compares those
// exactly (as big.Rat) against enum, const, minimum and maximum. An
// integer literal beyond uint64 is refused: it cannot be validated as the
// number it is. A number with a fraction or exponent is a float64, as
// every JSON decoder reads it.

// errParams is the root of a parse failure; messages say how to fix it.
var errParams = errors.New("params")

// parseObject parses params, which the dispatcher has already bounded in
// size and depth, into a map. Empty params are the empty object.
func parseObject(b []byte) (map[string]any, error) {
	i := skipWS(b, 0)
	if i == len(b) {
		return map[string]any{}, nil
	}
	v, i, err := parseValue(b, i)
	if err != nil {
		return nil, err
	}
	if i = skipWS(b, i); i != len(b) {
		return nil, fmt.Errorf("%w: arguments are not valid JSON: unexpected data after the object at byte %d", errParams, i)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: not a JSON object; send one", errParams)
	}
	return obj, nil
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func parseValue(b []byte, i int) (any, int, error) {
	if i >= len(b) {
		return nil, i, fmt.Errorf("%w: arguments are not valid JSON: unexpected end of JSON", errParams)
	}
	switch c := b[i]; {
	case c == '{':
		return parseObj(b, i)
	case c == '[':
		return parseArr(b, i)
	case c == '"':
		return parseStr(b, i)
	case c == 't':
		return lit(b, i, "true", true)
	case c == 'f':
		return lit(b, i, "false", false)
	case c == 'n':
		return lit(b, i, "null", nil)
	case c == '-' || c >= '0' && c <= '9':
		return parseNum(b, i)
	}
	return nil, i, fmt.Errorf("%w: arguments are not valid JSON: invalid character %q at byte %d", errParams, b[i], i)
}

func lit(b []byte, i int, word string, v any) (any, int, error) {
	if len(b)-i < len(word) || string(b[i:i+len(word)]) != word {
		return nil, i, fmt.Errorf("%w: arguments are not valid JSON: invalid literal at byte %d", errParams, i)
	}
	return v, i + len(word), nil
}

func parseObj(b []byte, i int) (any, int, error) {
	obj := map[string]any{}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return obj, i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return nil, i, fmt.Errorf("%w: arguments are not valid JSON: expected a member name in quotes at byte %d", errParams, i)
		}
		k, j, err := parseStr(b, i)
		if err != nil {
			return nil, j, err
		}
		key := k.(string)
		if _, dup := obj[key]; dup {
			return nil, i, fmt.Errorf("%w: the key %q appears twice in one object; send each key once", errParams, clip(key, 60))
		}
		i = skipWS(b, j)
		if i >= len(b) || b[i] != ':' {
			return nil, i, fmt.Errorf("%w: arguments are not valid JSON: expected ':' at byte %d", errParams, i)
		}
		v, j, err := parseValue(b, skipWS(b, i+1))
		if err != nil {
			return nil, j, err
		}
		obj[key] = v
		i = skipWS(b, j)
		if i < len(b) && b[i] == ',' {
			i = skipWS(b, i+1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			return obj, i + 1, nil
		}
		return nil, i, fmt.Errorf("%w: arguments are not valid JSON: expected ',' or '}' at byte %d", errParams, i)
	}
}

func parseArr(b []byte, i int) (any, int, error) {
	arr := []any{}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return arr, i + 1, nil
	}
	for {
		v, j, err := parseValue(b, i)
		if err != nil {
			return nil, j, err
		}
		arr = append(arr, v)
		i = skipWS(b, j)
		if i < len(b) && b[i] == ',' {
			i = skipWS(b, i+1)
			continue
		}
		if i < len(b) && b[i] == ']' {
			return arr, i + 1, nil
		}
		return nil, i, fmt.Errorf("%w: arguments are not valid JSON: expected ',' or ']' at byte %d", errParams, i)
	}
}

// parseStr reads a JSON string at b[i] == '"'. Strings without escapes,
// the common case, cost one scan; others are decoded by encoding/json.
func parseStr(b []byte, i int) (any, int, error) {
	esc := false
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '\\':
			esc = true
			j++
		case c < 0x20:
			return nil, j, fmt.Errorf("%w: arguments are not valid JSON: control character in a string at byte %d", errParams, j)
		case c == '"':
			if !esc {
				if !utf8.Valid(b[i+1 : j]) {
					return nil, j, fmt.Errorf("%w: a string is not valid UTF-8", errParams)
				}
				return string(b[i+1 : j]), j + 1, nil
			}
			var s string
			if err := json.Unmarshal(b[i:j+1], &s); err != nil {
				return nil, j, fmt.Errorf("%w: arguments are not valid JSON: invalid string at byte %d", errParams, i)
			}
			return s, j + 1, nil
		}
	}
	return nil, len(b), fmt.Errorf("%w: arguments are not valid JSON: unterminated string", errParams)
}

// parseNum reads a JSON number: an integer literal as int64 or uint64,
// anything with a fraction or exponent as float64.
func parseNum(b []byte, i int) (any, int, error) {
	start := i
	if b[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	intStart := i
	if digits() == 0 || b[intStart] == '0' && i-intStart > 1 {
		return nil, i, fmt.Errorf("%w: arguments are not valid JSON: invalid number at byte %d", errParams, start)
	}
	integer := true
	if i < len(b) && b[i] == '.' {
		i++
		integer = false
		if digits() == 0 {
			return nil, i, fmt.Errorf("%w: arguments are not valid JSON: invalid number at byte %d", errParams, start)
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		integer = false
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return nil, i, fmt.Errorf("%w: arguments are not valid JSON: invalid number at byte %d", errParams, start)
		}
	}
	text := string(b[start:i])
	if integer {
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			return n, i, nil
		}
		if n, err := strconv.ParseUint(text, 10, 64); err == nil {
			return n, i, nil
		}
		return nil, i, fmt.Errorf("%w: the integer %s is too large to be checked exactly (the limit is 64 bits); send it as a string", errParams, clip(text, 40))
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return nil, i, fmt.Errorf("%w: the number %s is out of range; send it as a string", errParams, clip(text, 40))
	}
	return f, i, nil
}
