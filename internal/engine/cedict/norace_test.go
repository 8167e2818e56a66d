//go:build !race

package cedict

const raceEnabled = false
