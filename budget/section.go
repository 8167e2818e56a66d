package budget

import (
	"strconv"
)

// Class is the part of a request a section belongs to. The context bar
// groups sections by class.
type Class uint8

// The classes of sections, in request order.
const (
	ClassSystem    Class = iota // the system prompt
	ClassTool                   // a resident tool's definition
	ClassEntry                  // tool_search or defer_execute
	ClassIndex                  // the deferred-tool index
	ClassMessage                // one message of the conversation
	ClassInjection              // an injected block (reminders, loaded-tool notices)
)

var classNames = [...]string{"system", "tool", "entry", "index", "message", "injection"}

func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "class(" + strconv.Itoa(int(c)) + ")"
}

// MarshalText encodes the class by name.
func (c Class) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// Section is one measurable piece of a request. Any request can be described
// as a list of sections; request.Session.Sections gives a session's.
type Section struct {
	// Name identifies the section in reports: "system", a tool's name,
	// "message 3" ...
	Name string
	// Class is the part of the request it belongs to.
	Class Class
	// Kind says how to estimate it when no tokenizer fits.
	Kind Kind
	// Text is the section's content as sent.
	Text string
	// Frozen marks text that recurs unchanged on later turns (the prefix,
	// messages already sent): its token count is cached by content.
	Frozen bool
}

// Size is what a section, or a sum of sections, measures.
type Size struct {
	Runes  int    `json:"chars"`
	Bytes  int    `json:"bytes"`
	Tokens Tokens `json:"tokens"`
}

// add returns the sum of two sizes.
func (s Size) add(o Size) Size {
	return Size{Runes: s.Runes + o.Runes, Bytes: s.Bytes + o.Bytes, Tokens: s.Tokens.Add(o.Tokens)}
}

// Row is one measured section (the text is left out).
type Row struct {
	Name  string `json:"name"`
	Class Class  `json:"class"`
	Size
}

// Measurement is a request measured section by section.
type Measurement struct {
	// Encoding is the counter's encoding.
	Encoding Encoding `json:"encoding"`
	// Rows are the sections in input order; sections sharing a name and
	// class (a tool's description and schema) are merged into one row.
	Rows []Row `json:"sections"`
	// Total sums the rows. Token totals are sums of section counts: the
	// provider's own count adds its framing (role markers, the tool
	// wrapper) on top, which no tokenizer here can see.
	Total Size `json:"total"`
}

// ByClass returns the total size of the sections of class c.
func (m *Measurement) ByClass(c Class) Size {
	var s Size
	for _, r := range m.Rows {
		if r.Class == c {
			s = s.add(r.Size)
		}
	}
	return s
}

// Measure measures sections: runes, bytes and tokens of each. Frozen
// sections are counted through the counter's cache, so measuring the next
// turn of a session tokenizes only its new messages.
func (c *Counter) Measure(sections []Section) *Measurement {
	m := &Measurement{Encoding: c.enc}
	m.add(c, sections)
	return m
}

// add measures sections with c and adds them to m: a section continuing
// the last row's name and class joins that row.
func (m *Measurement) add(c *Counter, sections []Section) {
	for _, s := range sections {
		var t Tokens
		var runes int
		if s.Frozen {
			t, runes = c.countFrozen(s.Kind, s.Text)
		} else {
			t, runes = c.Count(s.Kind, s.Text), runeCount(s.Text)
		}
		size := Size{Runes: runes, Bytes: len(s.Text), Tokens: t}
		m.Total = m.Total.add(size)
		if n := len(m.Rows); n > 0 && m.Rows[n-1].Name == s.Name && m.Rows[n-1].Class == s.Class {
			m.Rows[n-1].Size = m.Rows[n-1].Size.add(size)
			continue
		}
		m.Rows = append(m.Rows, Row{Name: s.Name, Class: s.Class, Size: size})
	}
}
