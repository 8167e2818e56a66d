//go:build race

package request

// raceEnabled: the race detector slows memory access unevenly, so time
// ratios measured under it are not the code's.
const raceEnabled = true
