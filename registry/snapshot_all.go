package registry

import "iter"

// all returns the tools in snapshot order, without copying the slice: a
// request session comparing a new snapshot with the one it follows walks
// it (registryx.SnapshotAll) on every change notice, and an unchanged
// snapshot must cost no allocation. The tools are shared and must not be
// modified.
func (s *Snapshot) all() iter.Seq[*Tool] {
	return func(yield func(*Tool) bool) {
		for _, t := range s.tools {
			if !yield(t) {
				return
			}
		}
	}
}
