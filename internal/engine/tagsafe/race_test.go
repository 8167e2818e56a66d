//go:build race

package tagsafe

// raceEnabled: the race detector changes what code allocates (sync.Pool
// drops items at random under it), so allocation assertions skip.
const raceEnabled = true
