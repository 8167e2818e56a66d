package estimate

// The calibration behind budget's Claude estimate: per calibration catalog,
// the o200k_base and legacy-Claude token sums of its tool descriptions
// (prose) and schemas (JSON), written by `go run ./internal/cmd/claudecal`
// into claudecal.json and embedded here.

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
)

//go:embed claudecal.json
var data []byte

// Catalog is one calibration catalog's token sums, counted with o200k_base
// and with the legacy Claude tokenizer.
type Catalog struct {
	Name        string `json:"name"`
	Tools       int    `json:"tools"`
	ProseO200k  int    `json:"prose_o200k"`
	ProseClaude int    `json:"prose_claude"`
	JSONO200k   int    `json:"json_o200k"`
	JSONClaude  int    `json:"json_claude"`
}

// Claude is the catalog's count by the Claude tokenizer.
func (c Catalog) Claude() int { return c.ProseClaude + c.JSONClaude }

// Calibration is the estimate's data: the ratios are the pooled
// Claude/o200k token ratios of every calibration text of a kind, and Band
// is the largest per-catalog error of the estimate, in percent.
type Calibration struct {
	Tokenizer  string
	Texts      int
	ProseRatio float64
	JSONRatio  float64
	Band       float64
	Catalogs   []Catalog
}

// Get returns the calibration read from the embedded data.
var Get = sync.OnceValue(func() Calibration {
	var d struct {
		Tokenizer string    `json:"tokenizer"`
		Catalogs  []Catalog `json:"catalogs"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		panic("estimate: claudecal.json: " + err.Error()) // embedded, checked by tests
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

// Scale is n o200k tokens times ratio, rounded to the nearest token.
func Scale(n int, ratio float64) int { return int(math.Round(float64(n) * ratio)) }

// Estimate is the calibrated estimate of a catalog's Claude tokens, scaled
// once per kind.
func (cal Calibration) Estimate(c Catalog) int {
	return Scale(c.ProseO200k, cal.ProseRatio) + Scale(c.JSONO200k, cal.JSONRatio)
}

// Error is the estimate's error on a catalog against the Claude
// tokenizer's count, in percent (positive: the estimate is higher).
func (cal Calibration) Error(c Catalog) float64 {
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
