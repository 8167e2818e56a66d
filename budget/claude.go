package budget

import "github.com/toolshelf/toolshelf/internal/engine/estimate"

// claudeEstimate estimates Claude's tokens from an exact o200k_base count,
// scaled per kind of text by ratios calibrated against the legacy Claude
// tokenizer (@anthropic-ai/tokenizer 0.0.4) on the tool definitions of the
// repository's catalogs; docs/budget.md gives the method, the per-catalog
// error and the limits. Its figures are marked estimates.
const claudeEstimate Encoding = "claude_estimate"

// Method names how the counter's figures are made: "" for an exact
// tokenizer, the character rates for "estimate", the calibration (ratios,
// texts, error band) for "claude_estimate".
func (c *Counter) Method() string {
	switch c.enc {
	case claudeEstimate:
		return estimate.Get().Method()
	case encodingEstimate:
		return "character estimate: prose at 4 chars/token, JSON at 1.3"
	}
	return ""
}

// scale turns an exact o200k count into the counter's figure: unchanged
// for a tokenizing counter, the calibrated estimate for [claudeEstimate].
// A count that is already an estimate (the vocabulary did not load) is
// left as it is.
func (c *Counter) scale(kind Kind, t Tokens) Tokens {
	if c.enc != claudeEstimate || t.Estimate {
		return t
	}
	cal := estimate.Get()
	ratio := cal.ProseRatio
	if kind == KindJSON {
		ratio = cal.JSONRatio
	}
	return Tokens{N: estimate.Scale(t.N, ratio), Estimate: true}
}
