//go:build race

package soak

// raceOn reports a -race build: the soak keeps its 1,000 sessions but
// gives each fewer turns, the race detector making each call ~10× slower.
const raceOn = true
