package estimate_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/internal/engine/estimate"
)

// TestClaudeCalibrationData recomputes the ratios and the band from the
// committed data file, independently of the package's reading of it, and
// checks that every calibration catalog is in it.
func TestClaudeCalibrationData(t *testing.T) {
	raw, err := os.ReadFile("claudecal.json")
	require.NoError(t, err)
	var d struct {
		Tokenizer string             `json:"tokenizer"`
		Catalogs  []estimate.Catalog `json:"catalogs"`
	}
	require.NoError(t, json.Unmarshal(raw, &d))
	cal := estimate.Get()
	assert.Equal(t, "@anthropic-ai/tokenizer@0.0.4", cal.Tokenizer)
	require.Equal(t, d.Catalogs, cal.Catalogs)

	var po, pc, jo, jc, texts int
	for _, c := range d.Catalogs {
		po, pc, jo, jc, texts = po+c.ProseO200k, pc+c.ProseClaude, jo+c.JSONO200k, jc+c.JSONClaude, texts+2*c.Tools
	}
	assert.Equal(t, texts, cal.Texts)
	assert.InDelta(t, float64(pc)/float64(po), cal.ProseRatio, 1e-12)
	assert.InDelta(t, float64(jc)/float64(jo), cal.JSONRatio, 1e-12)
	band := 0.0
	for _, c := range d.Catalogs {
		est := math.Round(float64(c.ProseO200k)*cal.ProseRatio) + math.Round(float64(c.JSONO200k)*cal.JSONRatio)
		band = max(band, math.Abs(100*(est-float64(c.Claude()))/float64(c.Claude())))
	}
	assert.InDelta(t, band, cal.Band, 1e-9)
	assert.LessOrEqual(t, cal.Band, 10.0, "the stated band")

	want, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "catalogs", "*.tools.json"))
	wild, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "wild", "*.json"))
	want = append(append(want, filepath.Join("..", "..", "..", "testdata", "fixtures", "harness-catalog.json")), wild...)
	var have []string
	for _, c := range d.Catalogs {
		have = append(have, filepath.Join("..", "..", "..", filepath.FromSlash(c.Name)))
	}
	for _, w := range want {
		if filepath.Base(w) != "servers.json" {
			assert.Contains(t, have, w, "not calibrated: run go run ./internal/cmd/claudecal")
		}
	}
}
