package budget

// tally measures a conversation turn by turn: [tally.add] measures only the
// sections it is given (a turn's new messages) and adds them to the running
// total, so accounting for a turn costs what its new text costs, not what
// the history does. [Counter.Measure] of the whole request, by contrast,
// looks at every section again on every turn (from the cache when frozen).
// A tally is not safe for concurrent use; keep one per session.
type tally struct {
	c *Counter
	m Measurement
}

// newTally returns an empty tally counting with c.
func (c *Counter) newTally() *tally {
	return &tally{c: c, m: Measurement{Encoding: c.enc}}
}

// add measures sections and adds them, merging rows as [Counter.Measure]
// does (a section continuing the last row's name and class joins it).
func (t *tally) add(sections ...Section) { t.m.add(t.c, sections) }

// total returns the size of everything added so far.
func (t *tally) total() Size { return t.m.Total }

// measurement returns a copy of the running measurement.
func (t *tally) measurement() *Measurement {
	m := t.m
	m.Rows = append([]Row(nil), t.m.Rows...)
	return &m
}
