//go:build !race

package tagsafe

const raceEnabled = false
