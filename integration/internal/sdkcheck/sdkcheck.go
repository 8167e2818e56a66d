// Package sdkcheck judges toolshelf's request bodies with the providers' own
// SDKs: github.com/openai/openai-go/v3 (Chat Completions and Responses),
// github.com/anthropics/anthropic-sdk-go (Messages) and
// google.golang.org/genai (Gemini's generateContent, in genai's types).
//
// [Check] decodes a body into the SDK's request param type
// (openai.ChatCompletionNewParams, responses.ResponseNewParams,
// anthropic.MessageNewParams), marshals it again as the SDK would send it,
// and compares the two JSON trees. A field the SDK does not know is dropped
// by the round trip, a value it cannot represent comes back changed, and a
// union it cannot discriminate disappears: each is a [Problem] with its JSON
// path. A body with no problem is one the official SDK could have built.
//
// Three differences are not problems, because the API reads both forms
// alike and the SDK merely normalizes: an explicit null the SDK leaves out
// (an absent optional field); a string content the SDK turns into one text
// block ([{"type":"text","text":s}]); and a top-level "stream", which the
// SDKs set in their streaming methods rather than in the param types.
//
// It is toolshelf's own SDK-compatibility check, not a harness-facing kit:
// only this package's tests use it, to judge the golden bodies, the wild
// corpus and long sessions of every encoder (docs/integration.md, "The SDKs
// as judges").
// It lives in the nested integration module so that the SDKs stay out of
// the core library's import graph.
package sdkcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"google.golang.org/genai"

	"github.com/toolshelf/toolshelf/request"
)

// geminiRequest is the body of the Gemini API's generateContent in
// google.golang.org/genai's types. genai has no one type for the REST
// body (GenerateContent takes model, contents and a config and converts
// them, models.go generateContentParametersToMldev); its members are
// genai's own types, whose JSON names are the REST ones
// (ai.google.dev/api/generate-content#request-body).
type geminiRequest struct {
	Contents          []*genai.Content        `json:"contents,omitempty"`
	SystemInstruction *genai.Content          `json:"systemInstruction,omitempty"`
	Tools             []*genai.Tool           `json:"tools,omitempty"`
	ToolConfig        *genai.ToolConfig       `json:"toolConfig,omitempty"`
	GenerationConfig  *genai.GenerationConfig `json:"generationConfig,omitempty"`
	SafetySettings    []*genai.SafetySetting  `json:"safetySettings,omitempty"`
	CachedContent     string                  `json:"cachedContent,omitempty"`
	Labels            map[string]string       `json:"labels,omitempty"`
}

// Kind says how a value differs after the SDK round trip.
type Kind string

// The kinds of [Problem].
const (
	// Dropped: in the body, absent after the round trip (a field the SDK
	// does not know, or a union variant it could not decode).
	Dropped Kind = "dropped"
	// Added: absent from the body, present after the round trip.
	Added Kind = "added"
	// Changed: present in both with different values or types.
	Changed Kind = "changed"
)

// Problem is one difference between a body and its SDK round trip.
type Problem struct {
	// Path is the JSON pointer of the value ("/tools/3/defer_loading").
	Path string
	Kind Kind
	// Body and SDK are the compact JSON of the value on each side, cut to
	// 120 bytes; empty on the side where it is absent.
	Body, SDK string
}

func (p Problem) String() string {
	switch p.Kind {
	case Dropped:
		return fmt.Sprintf("%s: dropped by the SDK (body has %s)", p.Path, p.Body)
	case Added:
		return fmt.Sprintf("%s: added by the SDK (%s)", p.Path, p.SDK)
	}
	return fmt.Sprintf("%s: changed by the SDK: body %s, SDK %s", p.Path, p.Body, p.SDK)
}

// RoundTrip decodes body into p's official SDK request type and returns the
// SDK's own encoding of it.
func RoundTrip(p request.Provider, body []byte) ([]byte, error) {
	var v any
	switch p {
	case request.OpenAIChat:
		v = new(openai.ChatCompletionNewParams)
	case request.OpenAIResponses:
		v = new(responses.ResponseNewParams)
	case request.Anthropic:
		v = new(anthropic.MessageNewParams)
	case request.Gemini:
		v = new(geminiRequest)
	default:
		return nil, fmt.Errorf("sdkcheck: %w: %q", request.ErrUnknownProvider, p)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return nil, fmt.Errorf("sdkcheck: %s: the SDK cannot decode the body: %w", p, err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("sdkcheck: %s: the SDK cannot encode the decoded body: %w", p, err)
	}
	return out, nil
}

// Check round-trips body through p's SDK and returns every difference,
// sorted by path. An error means the SDK could not decode the body at all.
func Check(p request.Provider, body []byte) ([]Problem, error) {
	rt, err := RoundTrip(p, body)
	if err != nil {
		return nil, err
	}
	problems, err := Diff(body, rt)
	if p != request.Gemini {
		return problems, err
	}
	// genai's FunctionCall.Args is a map with omitempty: a call without
	// arguments, {} in the body, is absent after the round trip. The API
	// reads both alike (args is optional: "the function parameters and
	// values in JSON object format"), and toolshelf sends the {} the model
	// wrote back verbatim, so it is a normalization, not a problem.
	kept := problems[:0]
	for _, pr := range problems {
		if pr.Kind == Dropped && pr.Body == "{}" && strings.HasSuffix(pr.Path, "/functionCall/args") {
			continue
		}
		kept = append(kept, pr)
	}
	return kept, err
}

// Diff compares two JSON documents as trees (object key order ignored) and
// returns their differences, sorted by path.
func Diff(body, sdk []byte) ([]Problem, error) {
	a, err := decode(body)
	if err != nil {
		return nil, fmt.Errorf("sdkcheck: body: %w", err)
	}
	b, err := decode(sdk)
	if err != nil {
		return nil, fmt.Errorf("sdkcheck: SDK encoding: %w", err)
	}
	var out []Problem
	if m, ok := a.(map[string]any); ok {
		if _, isBool := m["stream"].(bool); isBool {
			if bm, ok := b.(map[string]any); ok && bm["stream"] == nil {
				m = maps.Clone(m)
				delete(m, "stream") // set by NewStreaming, not a param field
				a = m
			}
		}
	}
	diff("", a, b, &out)
	slices.SortFunc(out, func(x, y Problem) int { return strings.Compare(x.Path, y.Path) })
	return out, nil
}

func decode(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func diff(path string, a, b any, out *[]Problem) {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			*out = append(*out, Problem{Path: orRoot(path), Kind: Changed, Body: short(a), SDK: short(b)})
			return
		}
		for k, x := range av {
			p := path + "/" + escape(k)
			if y, ok := bv[k]; ok {
				diff(p, x, y, out)
			} else if x != nil { // a null the SDK leaves out is an absent field
				*out = append(*out, Problem{Path: p, Kind: Dropped, Body: short(x)})
			}
		}
		for k, y := range bv {
			if _, ok := av[k]; !ok {
				*out = append(*out, Problem{Path: path + "/" + escape(k), Kind: Added, SDK: short(y)})
			}
		}
	case []any:
		bv, ok := b.([]any)
		if !ok {
			*out = append(*out, Problem{Path: orRoot(path), Kind: Changed, Body: short(a), SDK: short(b)})
			return
		}
		for i, x := range av {
			p := path + "/" + strconv.Itoa(i)
			if i < len(bv) {
				diff(p, x, bv[i], out)
			} else {
				*out = append(*out, Problem{Path: p, Kind: Dropped, Body: short(x)})
			}
		}
		for i := len(av); i < len(bv); i++ {
			*out = append(*out, Problem{Path: path + "/" + strconv.Itoa(i), Kind: Added, SDK: short(bv[i])})
		}
	case json.Number:
		bn, ok := b.(json.Number)
		if !ok || !sameNumber(av, bn) {
			*out = append(*out, Problem{Path: orRoot(path), Kind: Changed, Body: short(a), SDK: short(b)})
		}
	case string:
		if oneTextBlock(b, av) {
			return // "s" and [{"type":"text","text":"s"}] are the same content
		}
		if a != b {
			*out = append(*out, Problem{Path: orRoot(path), Kind: Changed, Body: short(a), SDK: short(b)})
		}
	default:
		if a != b {
			*out = append(*out, Problem{Path: orRoot(path), Kind: Changed, Body: short(a), SDK: short(b)})
		}
	}
}

// oneTextBlock reports whether v is [{"type":"text","text":s}].
func oneTextBlock(v any, s string) bool {
	arr, ok := v.([]any)
	if !ok || len(arr) != 1 {
		return false
	}
	m, ok := arr[0].(map[string]any)
	return ok && len(m) == 2 && m["type"] == "text" && m["text"] == s
}

// sameNumber compares numbers by value: 0 and 0.0 are the same number.
func sameNumber(a, b json.Number) bool {
	if a == b {
		return true
	}
	x, err1 := a.Float64()
	y, err2 := b.Float64()
	return err1 == nil && err2 == nil && x == y
}

func orRoot(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// escape escapes a key for a JSON pointer (RFC 6901).
func escape(k string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
}

func short(v any) string {
	if v == nil {
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 120 {
		return string(b[:117]) + "..."
	}
	return string(b)
}
