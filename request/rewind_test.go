package request

import (
	"maps"
	"slices"
)

// mark is a point in a history that [history.rewind] returns to: the
// benchmarks and limits tests replay one turn on one history.
type mark struct {
	buf, entries, nDropped int
	last                   Role
	pending                []string
	ids                    map[string]string
}

func (h *history) mark() mark {
	return mark{buf: len(h.buf), entries: len(h.entries), nDropped: h.nDropped, last: h.last, pending: slices.Clone(h.pending), ids: maps.Clone(h.ids.byID)}
}

// rewind returns h to m without allocating: the calls recorded since m
// are the sent ids m does not hold (recording only adds).
func (h *history) rewind(m mark) {
	h.buf = h.buf[:m.buf]
	clear(h.entries[m.entries:])
	h.entries = h.entries[:m.entries]
	h.nDropped = m.nDropped
	h.last = m.last
	h.pending = append(h.pending[:0], m.pending...)
	if len(h.ids.byID) != len(m.ids) {
		for sent := range h.ids.byID {
			if _, ok := m.ids[sent]; !ok {
				delete(h.ids.byID, sent)
			}
		}
	}
}
