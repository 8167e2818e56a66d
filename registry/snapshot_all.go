package registry

import "iter"

// All returns the tools in snapshot order, as [Snapshot.Tools] does,
// without copying the slice: a request session comparing a new snapshot
// with the one it follows walks it on every change notice, and an
// unchanged snapshot must cost no allocation. The tools are shared and
// must not be modified.
func (s *Snapshot) All() iter.Seq[*Tool] {
	return func(yield func(*Tool) bool) {
		for _, t := range s.tools {
			if !yield(t) {
				return
			}
		}
	}
}
