// Package estimate holds the character-based token estimates the library
// falls back on where no tokenizer fits: prose at 4 characters a token, dense
// JSON (schemas) at 1.3, and the calibration that scales an o200k_base
// count to the legacy Claude tokenizer's (claude.go). Packages that use them
// mark their figures as estimates.
package estimate

import (
	"math"
	"unicode/utf8"
)

// Characters per token, as commonly measured on English prose and on dense JSON.
const (
	ProseCharsPerToken = 4.0
	JSONCharsPerToken  = 1.3
)

// Prose estimates the tokens of natural-language text.
func Prose(s string) int {
	return int(math.Ceil(float64(utf8.RuneCountInString(s)) / ProseCharsPerToken))
}

// JSON estimates the tokens of compact JSON.
func JSON(b []byte) int {
	return int(math.Ceil(float64(utf8.RuneCount(b)) / JSONCharsPerToken))
}
