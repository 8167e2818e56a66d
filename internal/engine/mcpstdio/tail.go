package mcpstdio

import (
	"strings"
	"sync"
)

// tail keeps the last max bytes written to it: the server's stderr, which
// exec copies from a goroutine of its own.
type tail struct {
	mu      sync.Mutex
	buf     []byte
	max     int
	dropped bool
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.dropped = true
	}
	return len(p), nil
}

// maxQuoted bounds the stderr quoted in one error message, in runes.
const maxQuoted = 300

// suffix is "; stderr: …" with the last lines of stderr joined by " | " on
// one line, or "" when the server wrote nothing there.
func (t *tail) suffix() string {
	t.mu.Lock()
	s := strings.ToValidUTF8(string(t.buf), "\uFFFD")
	dropped := t.dropped
	t.mu.Unlock()
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	q := strings.Join(lines, " | ")
	if r := []rune(q); len(r) > maxQuoted {
		q, dropped = string(r[len(r)-maxQuoted:]), true
	}
	if dropped {
		q = "…" + q
	}
	return "; stderr: " + q
}
