//go:build !race

package toolsearch

const raceEnabled = false
