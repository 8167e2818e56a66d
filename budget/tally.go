package budget

// Tally measures a conversation turn by turn: [Tally.Add] measures only the
// sections it is given (a turn's new messages) and adds them to the running
// total, so accounting for a turn costs what its new text costs, not what
// the history does. [Counter.Measure] of the whole request, by contrast,
// looks at every section again on every turn (from the cache when frozen).
// A Tally is not safe for concurrent use; keep one per session.
type Tally struct {
	c *Counter
	m Measurement
}

// Tally returns an empty tally counting with c.
func (c *Counter) Tally() *Tally {
	return &Tally{c: c, m: Measurement{Encoding: c.enc}}
}

// Add measures sections and adds them, merging rows as [Counter.Measure]
// does (a section continuing the last row's name and class joins it).
func (t *Tally) Add(sections ...Section) { t.m.add(t.c, sections) }

// Total returns the size of everything added so far.
func (t *Tally) Total() Size { return t.m.Total }

// Measurement returns a copy of the running measurement.
func (t *Tally) Measurement() *Measurement {
	m := t.m
	m.Rows = append([]Row(nil), t.m.Rows...)
	return &m
}
