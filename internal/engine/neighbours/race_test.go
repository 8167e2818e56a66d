//go:build race

package neighbours

const raceEnabled = true
