//go:build !race

package soak

// raceOn reports a -race build.
const raceOn = false
