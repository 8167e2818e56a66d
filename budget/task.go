package budget

// transcript is a recorded conversation reduced to what costs tokens: one
// frozen section per message (and per host block sent with it), and which
// of them the model wrote. Each model-written section answers one model
// request, whose input is the prefix plus every section before it.
//
// [transcriptOf] builds one from request's messages (Session.Messages),
// [parseTranscript] from a saved file.
type transcript struct {
	// Name names the task, for reports.
	Name string
	// Messages has one section per message, in order.
	Messages []Section
	// ByModel[i] reports whether message i was written by the model.
	ByModel []bool
	// ToolCalls counts the model's tool calls.
	ToolCalls int
}

// taskCost is what one task pays in tokens: every model request re-reads
// the prefix and the conversation so far, so each tool call costs a second
// prefill, and each extra round trip (tool_search, then the call) another.
type taskCost struct {
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

// taskCost replays tr against prefix (system and tools as sent on every
// request): one request per model-written message, its input the prefix
// plus every message before it. Counts are content sums (see
// [Measurement.Total]); the provider's per-message framing is not included.
func (c *Counter) taskCost(prefix []Section, tr *transcript) taskCost {
	tc := taskCost{Task: tr.Name, ToolCalls: tr.ToolCalls}
	tc.Prefix = c.Measure(prefix).Total.Tokens
	var before Tokens
	for i, s := range tr.Messages {
		t := c.countFrozenTokens(s.Kind, s.Text)
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

// taskComparison sets one task's cost with every tool resident against its
// cost with deferral.
type taskComparison struct {
	Task     string   `json:"task"`
	AlwaysOn taskCost `json:"always_on"`
	Deferred taskCost `json:"deferred"`
	// Delta is deferred minus always-on input tokens (negative saves);
	// DeltaShare is Delta over always-on.
	Delta      int     `json:"delta_input_tokens"`
	DeltaShare float64 `json:"delta_share"`
	Estimate   bool    `json:"estimate"`
}

// Compare pairs two costs of the same task.
func compare(alwaysOn, deferred taskCost) taskComparison {
	d := deferred.Input.N - alwaysOn.Input.N
	return taskComparison{
		Task: alwaysOn.Task, AlwaysOn: alwaysOn, Deferred: deferred,
		Delta: d, DeltaShare: ratio(d, alwaysOn.Input.N),
		Estimate: alwaysOn.Input.Estimate || deferred.Input.Estimate,
	}
}
