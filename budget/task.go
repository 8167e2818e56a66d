package budget

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ErrTranscript is wrapped by errors about a transcript file.
var ErrTranscript = errors.New("budget: bad transcript")

// Transcript is a recorded conversation reduced to what costs tokens: one
// frozen section per message, and which messages the model wrote. Each
// model-written message answers one model request, whose input is the
// prefix plus every message before it.
//
// The file form is the library's neutral message form (a JSON array of
// request.Message: role, text, tool_calls, call_id, is_error). Package
// budget reads it without importing package request, so that request may
// describe its own sections with [Section].
type Transcript struct {
	// Name names the task, for reports.
	Name string
	// Messages has one section per message, in order.
	Messages []Section
	// ByModel[i] reports whether message i was written by the model.
	ByModel []bool
	// ToolCalls counts the model's tool calls.
	ToolCalls int
}

// wireMessage mirrors request.Message's JSON form.
type wireMessage struct {
	Role      string `json:"role"`
	Text      string `json:"text"`
	ToolCalls []struct {
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"tool_calls"`
	CallID  string `json:"call_id"`
	IsError bool   `json:"is_error"`
}

// LoadTranscript reads a transcript file; the task is named after the file.
// Errors name the file.
func LoadTranscript(path string) (*Transcript, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	name := path[strings.LastIndexByte(path, '/')+1:]
	tr, err := ParseTranscript(strings.TrimSuffix(name, ".json"), data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return tr, nil
}

// ParseTranscript parses a transcript in the neutral message form. A tool
// call's text is its name and compact arguments; a tool result or message
// whose text is JSON is rated as JSON.
func ParseTranscript(name string, data []byte) (*Transcript, error) {
	var msgs []wireMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&msgs); err != nil {
		return nil, fmt.Errorf("%w: want a JSON array of messages: %v", ErrTranscript, err)
	}
	tr := &Transcript{Name: name}
	for i, m := range msgs {
		var b strings.Builder
		kind := KindProse
		switch m.Role {
		case "user", "tool":
			b.WriteString(m.Text)
			if json.Valid([]byte(m.Text)) && strings.ContainsAny(m.Text, "{[") {
				kind = KindJSON
			}
		case "assistant":
			b.WriteString(m.Text)
			for _, c := range m.ToolCalls {
				if c.Name == "" {
					return nil, fmt.Errorf("%w: message %d: a tool call needs a name", ErrTranscript, i)
				}
				b.WriteString(c.Name)
				var args bytes.Buffer
				if err := json.Compact(&args, c.Arguments); err != nil || args.Len() == 0 || args.Bytes()[0] != '{' {
					return nil, fmt.Errorf("%w: message %d: call %q: arguments must be a JSON object", ErrTranscript, i, c.Name)
				}
				b.Write(args.Bytes())
				kind = KindJSON
				tr.ToolCalls++
			}
		default:
			return nil, fmt.Errorf("%w: message %d: unknown role %q (want user, assistant or tool)", ErrTranscript, i, m.Role)
		}
		tr.Messages = append(tr.Messages, Section{
			Name: "message " + strconv.Itoa(i), Class: ClassMessage, Kind: kind, Text: b.String(), Frozen: true,
		})
		tr.ByModel = append(tr.ByModel, m.Role == "assistant")
	}
	return tr, nil
}

// TaskCost is what one task pays in tokens: every model request re-reads
// the prefix and the conversation so far, so each tool call costs a second
// prefill, and each extra round trip (tool_search, then the call) another.
type TaskCost struct {
	Task      string `json:"task"`
	Requests  int    `json:"requests"`
	ToolCalls int    `json:"tool_calls"`
	// Prefix is what every request carries before the messages.
	Prefix Tokens `json:"prefix_tokens"`
	// Input sums the input of every request; PerRequest lists them.
	Input      Tokens   `json:"input_tokens"`
	PerRequest []Tokens `json:"per_request_input_tokens"`
	// Output sums the model-written messages.
	Output Tokens `json:"output_tokens"`
}

// TaskCost replays tr against prefix (system and tools as sent on every
// request): one request per model-written message, its input the prefix
// plus every message before it. Counts are content sums (see
// [Measurement.Total]); the provider's per-message framing is not included.
func (c *Counter) TaskCost(prefix []Section, tr *Transcript) TaskCost {
	tc := TaskCost{Task: tr.Name, ToolCalls: tr.ToolCalls}
	tc.Prefix = c.Measure(prefix).Total.Tokens
	var before Tokens
	for i, s := range tr.Messages {
		t := c.CountFrozen(s.Kind, s.Text)
		if tr.ByModel[i] {
			in := tc.Prefix.Add(before)
			tc.PerRequest = append(tc.PerRequest, in)
			tc.Input = tc.Input.Add(in)
			tc.Output = tc.Output.Add(t)
			tc.Requests++
		}
		before = before.Add(t)
	}
	return tc
}

// TaskComparison sets one task's cost with every tool resident against its
// cost with deferral.
type TaskComparison struct {
	Task     string   `json:"task"`
	AlwaysOn TaskCost `json:"always_on"`
	Deferred TaskCost `json:"deferred"`
	// Delta is deferred minus always-on input tokens (negative saves);
	// DeltaShare is Delta over always-on.
	Delta      int     `json:"delta_input_tokens"`
	DeltaShare float64 `json:"delta_share"`
	Estimate   bool    `json:"estimate"`
}

// Compare pairs two costs of the same task.
func Compare(alwaysOn, deferred TaskCost) TaskComparison {
	d := deferred.Input.N - alwaysOn.Input.N
	return TaskComparison{
		Task: alwaysOn.Task, AlwaysOn: alwaysOn, Deferred: deferred,
		Delta: d, DeltaShare: ratio(d, alwaysOn.Input.N),
		Estimate: alwaysOn.Input.Estimate || deferred.Input.Estimate,
	}
}

// TaskTable formats comparisons one task a line — never only the mean,
// which hides the task that loses tokens — followed by the totals.
func TaskTable(rows []TaskComparison) string {
	var b strings.Builder
	b.WriteString("| task | always-on: prefix × requests → input | deferred: prefix × requests → input | delta |\n")
	b.WriteString("|---|--:|--:|--:|\n")
	var a, d TaskCost
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s × %d → %s | %s × %d → %s | %s |\n", r.Task,
			r.AlwaysOn.Prefix, r.AlwaysOn.Requests, r.AlwaysOn.Input,
			r.Deferred.Prefix, r.Deferred.Requests, r.Deferred.Input, signedPct(r.DeltaShare))
		a.Input, d.Input = a.Input.Add(r.AlwaysOn.Input), d.Input.Add(r.Deferred.Input)
		a.Requests, d.Requests = a.Requests+r.AlwaysOn.Requests, d.Requests+r.Deferred.Requests
	}
	if len(rows) > 1 {
		fmt.Fprintf(&b, "| all %d tasks | %d requests → %s | %d requests → %s | %s |\n", len(rows),
			a.Requests, a.Input, d.Requests, d.Input, signedPct(ratio(d.Input.N-a.Input.N, a.Input.N)))
	}
	return b.String()
}

func signedPct(f float64) string {
	s := strconv.FormatFloat(f*100, 'f', 1, 64) + "%"
	if f > 0 {
		s = "+" + s
	}
	return s
}
