package budget

import "unsafe"

// cacheEntryOverhead is what one cached text costs beyond its bytes, in
// the accounting of a counter's cache bound: the entry and its two map
// slots, rounded up.
const cacheEntryOverhead = 128

// countCache is a least-recently-used cache of token counts by text,
// bounded in bytes. Each entry is in two maps: by content, and by the
// identity of the string it was stored with (data pointer and length). The
// entry keeps that string, so its memory cannot be reused by another text
// while the identity key is in the map: an identity hit is the same bytes.
type countCache struct {
	limit, bytes int
	byText       map[string]*countEntry
	byPtr        map[strID]*countEntry
	head         countEntry // sentinel of the recency list: head.next is the newest
}

type strID struct {
	p *byte
	n int
}

type countEntry struct {
	text       string
	tokens     int
	runes      int
	prev, next *countEntry
}

func (c *countCache) init(limit int) {
	c.limit = limit
	c.byText = map[string]*countEntry{}
	c.byPtr = map[strID]*countEntry{}
	c.head.next, c.head.prev = &c.head, &c.head
}

func idOf(s string) strID { return strID{unsafe.StringData(s), len(s)} }

// get finds text by identity, then by content, and marks it used.
func (c *countCache) get(text string) *countEntry {
	e, ok := c.byPtr[idOf(text)]
	if !ok {
		if e, ok = c.byText[text]; !ok {
			return nil
		}
	}
	c.unlink(e)
	c.pushFront(e)
	return e
}

// put stores a count, then evicts the least recently used entries until
// the cache is within its bound. A text larger than the bound is not kept.
func (c *countCache) put(text string, tokens, runes int) {
	size := len(text) + cacheEntryOverhead
	if size > c.limit {
		return
	}
	if _, ok := c.byText[text]; ok { // counted concurrently
		return
	}
	e := &countEntry{text: text, tokens: tokens, runes: runes}
	c.byText[text] = e
	c.byPtr[idOf(text)] = e
	c.pushFront(e)
	c.bytes += size
	for c.bytes > c.limit {
		old := c.head.prev
		c.unlink(old)
		delete(c.byText, old.text)
		delete(c.byPtr, idOf(old.text))
		c.bytes -= len(old.text) + cacheEntryOverhead
	}
}

func (c *countCache) unlink(e *countEntry) {
	e.prev.next, e.next.prev = e.next, e.prev
}

func (c *countCache) pushFront(e *countEntry) {
	e.prev, e.next = &c.head, c.head.next
	c.head.next.prev = e
	c.head.next = e
}
