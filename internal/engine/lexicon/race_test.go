//go:build race

package lexicon

const raceEnabled = true
