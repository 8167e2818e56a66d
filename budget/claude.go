package budget

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
)

// ClaudeEstimate estimates Claude's tokens from an exact o200k_base count,
// scaled per kind of text by ratios calibrated against the legacy Claude
// tokenizer (see [ClaudeCalibration]). Its figures are marked estimates.
const ClaudeEstimate Encoding = "claude_estimate"

// claudecal.json is written by `go run ./internal/claudecal`: per
// calibration catalog, the o200k_base and legacy-Claude token sums of its
// tool descriptions (prose) and schemas (JSON).
//
//go:embed claudecal.json
var claudeCalJSON []byte

// CalibrationCatalog is one calibration catalog's token sums, counted with
// o200k_base and with the legacy Claude tokenizer.
type CalibrationCatalog struct {
	Name        string `json:"name"`
	Tools       int    `json:"tools"`
	ProseO200k  int    `json:"prose_o200k"`
	ProseClaude int    `json:"prose_claude"`
	JSONO200k   int    `json:"json_o200k"`
	JSONClaude  int    `json:"json_claude"`
}

// Claude is the catalog's count by the Claude tokenizer.
func (c CalibrationCatalog) Claude() int { return c.ProseClaude + c.JSONClaude }

// Calibration is the data behind [ClaudeEstimate]: the ratios are the
// pooled Claude/o200k token ratios of every calibration text of a kind, and
// Band is the largest per-catalog error of the estimate, in percent.
type Calibration struct {
	Tokenizer  string               `json:"tokenizer"`
	Texts      int                  `json:"texts"`
	ProseRatio float64              `json:"prose_ratio"`
	JSONRatio  float64              `json:"json_ratio"`
	Band       float64              `json:"band_percent"`
	Catalogs   []CalibrationCatalog `json:"catalogs"`
}

// ClaudeCalibration returns the calibration [ClaudeEstimate] uses, read
// from the data embedded in the package.
func ClaudeCalibration() Calibration { return claudeCal() }

var claudeCal = sync.OnceValue(func() Calibration {
	var d struct {
		Tokenizer string               `json:"tokenizer"`
		Catalogs  []CalibrationCatalog `json:"catalogs"`
	}
	if err := json.Unmarshal(claudeCalJSON, &d); err != nil {
		panic("budget: claudecal.json: " + err.Error()) // embedded, checked by tests
	}
	cal := Calibration{Tokenizer: d.Tokenizer, Catalogs: d.Catalogs}
	var po, pc, jo, jc int
	for _, c := range d.Catalogs {
		cal.Texts += 2 * c.Tools
		po, pc, jo, jc = po+c.ProseO200k, pc+c.ProseClaude, jo+c.JSONO200k, jc+c.JSONClaude
	}
	cal.ProseRatio, cal.JSONRatio = float64(pc)/float64(po), float64(jc)/float64(jo)
	for _, c := range d.Catalogs {
		cal.Band = max(cal.Band, math.Abs(cal.Error(c)))
	}
	return cal
})

// Estimate is the calibrated estimate of a catalog's Claude tokens.
func (cal Calibration) Estimate(c CalibrationCatalog) int {
	return scaleTokens(c.ProseO200k, cal.ProseRatio) + scaleTokens(c.JSONO200k, cal.JSONRatio)
}

// Error is the estimate's error on a catalog against the Claude
// tokenizer's count, in percent (positive: the estimate is higher).
func (cal Calibration) Error(c CalibrationCatalog) float64 {
	if c.Claude() == 0 {
		return 0
	}
	return 100 * float64(cal.Estimate(c)-c.Claude()) / float64(c.Claude())
}

// Method says how the estimate is made, for output next to its figures.
func (cal Calibration) Method() string {
	name, version, _ := strings.Cut(strings.TrimPrefix(cal.Tokenizer, "@"), "@")
	return fmt.Sprintf("claude estimate: o200k × %.3f (prose), × %.3f (JSON), calibrated on %d texts against @%s %s; error band ±%.1f%% per catalog",
		cal.ProseRatio, cal.JSONRatio, cal.Texts, name, version, cal.Band)
}

// ratio is the calibrated ratio for a kind of text.
func (cal Calibration) ratio(kind Kind) float64 {
	if kind == KindJSON {
		return cal.JSONRatio
	}
	return cal.ProseRatio
}

func scaleTokens(n int, ratio float64) int { return int(math.Round(float64(n) * ratio)) }

// Method names how the counter's figures are made: "" for an exact
// tokenizer, the character rates for [EncodingEstimate], the calibration
// for [ClaudeEstimate].
func (c *Counter) Method() string {
	switch c.enc {
	case ClaudeEstimate:
		return claudeCal().Method()
	case EncodingEstimate:
		return "character estimate: prose at 4 chars/token, JSON at 1.3"
	}
	return ""
}

// scale turns an exact o200k count into the counter's figure: unchanged
// for a tokenizing counter, the calibrated estimate for [ClaudeEstimate].
// A count that is already an estimate (the vocabulary did not load) is
// left as it is.
func (c *Counter) scale(kind Kind, t Tokens) Tokens {
	if c.enc != ClaudeEstimate || t.Estimate {
		return t
	}
	return Tokens{N: scaleTokens(t.N, claudeCal().ratio(kind)), Estimate: true}
}
