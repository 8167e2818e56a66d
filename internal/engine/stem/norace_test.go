//go:build !race

package stem

const raceEnabled = false
