package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/toolshelf/toolshelf/registry"
)

// A pin is the definition of a tool the user accepted: the SHA-256 of its
// canonical definition (registry.Tool.CanonicalDefinition, the hash a
// session pins by), the hash of the same definition without its name (to
// catch a rename that kept it), and the definition itself (to show what
// changed).
type pin struct {
	SHA256     string          `json:"sha256"`
	Body       string          `json:"body_sha256"`
	Definition json.RawMessage `json:"definition"`
}

// A quarantine holds a tool the gateway serves to nobody until it is
// approved: its definition changed since it was pinned, or it is a pinned
// tool under a new name.
type quarantine struct {
	Reason    string `json:"reason"`
	Pinned    *pin   `json:"pinned,omitempty"`
	Now       pin    `json:"now"`
	RenamedOf string `json:"renamed_from,omitempty"`
}

// pinFile is the pins file: what the gateway accepted and what it holds
// back. The approve command moves a tool from quarantined to pinned; a
// serving gateway reads the file again when it changes.
type pinFile struct {
	Pinned      map[string]pin        `json:"pinned"`
	Quarantined map[string]quarantine `json:"quarantined"`
}

// pinStore keeps the pins of one gateway, in a file when path is set
// (else in memory: changes during the run are held until restart).
type pinStore struct {
	path string

	mu   sync.Mutex
	f    pinFile
	seen os.FileInfo // the file as last read or written
}

// maxPinFile bounds the pins file; a pin is the size of a tool definition.
const maxPinFile = 64 << 20

func newPinStore(path string) (*pinStore, error) {
	p := &pinStore{path: path, f: pinFile{Pinned: map[string]pin{}, Quarantined: map[string]quarantine{}}}
	if path == "" {
		return p, nil
	}
	if _, err := p.reloadLocked(); err != nil {
		return nil, err
	}
	return p, nil
}

// reloadLocked reads the file if it changed since the last read, and
// reports whether it did. A missing file is an empty one.
func (p *pinStore) reloadLocked() (bool, error) {
	if p.path == "" {
		return false, nil
	}
	st, err := os.Stat(p.path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("pins: %w", err)
	}
	if p.seen != nil && os.SameFile(p.seen, st) && st.ModTime().Equal(p.seen.ModTime()) && st.Size() == p.seen.Size() {
		// Every write renames a new file over the path: another file is
		// another write, even within one tick of the clock.
		return false, nil
	}
	f, err := readPinFile(p.path)
	if err != nil {
		return false, err
	}
	p.f, p.seen = f, st
	return true, nil
}

// readPinFile reads a pins file; a missing one is empty.
func readPinFile(path string) (pinFile, error) {
	f := pinFile{Pinned: map[string]pin{}, Quarantined: map[string]quarantine{}}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("pins: %w", err)
	}
	if len(b) > maxPinFile {
		return f, fmt.Errorf("pins %s: %d bytes; the limit is %d", path, len(b), maxPinFile)
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return f, fmt.Errorf("pins %s: %w", path, err)
	}
	if f.Pinned == nil {
		f.Pinned = map[string]pin{}
	}
	if f.Quarantined == nil {
		f.Quarantined = map[string]quarantine{}
	}
	return f, nil
}

// writePinFile writes f atomically (a temporary file renamed over path).
func writePinFile(path string, f pinFile) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".pins-*")
	if err != nil {
		return fmt.Errorf("pins: %w", err)
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("pins: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("pins: %w", err)
	}
	return os.Rename(tmp.Name(), path)
}

// pinOf returns the pin of t as it is now.
func pinOf(t *registry.Tool) pin {
	def := t.CanonicalDefinition()
	// The definition under a fixed name: equal for a tool renamed with its
	// description, schema and annotations kept.
	c := *t
	c.Name = "_"
	return pin{SHA256: hexSHA(def), Body: hexSHA(c.CanonicalDefinition()), Definition: def}
}

func hexSHA(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// observe compares the upstream tools with the pins: a tool seen for the
// first time is pinned (trust on first use), one whose definition differs
// from its pin, or that carries a pinned tool's definition under a new
// name while that tool is gone, is quarantined. It returns the names held
// back and whether the pins changed (and were written).
func (p *pinStore) observe(snap *registry.Snapshot) (map[string]quarantine, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := p.reloadLocked(); err != nil {
		return nil, err
	}
	tools := snap.Tools()
	present := make(map[string]bool, len(tools))
	for _, t := range tools {
		present[t.Name] = true
	}
	// Pinned bodies of tools no server lists any more: a new name with one
	// of them is a rename.
	gone := map[string]string{}
	for name, pn := range p.f.Pinned {
		if !present[name] {
			if prev, ok := gone[pn.Body]; !ok || name < prev {
				gone[pn.Body] = name
			}
		}
	}
	changed := false
	held := map[string]quarantine{}
	for _, t := range tools {
		now := pinOf(t)
		pn, pinned := p.f.Pinned[t.Name]
		var q quarantine
		switch {
		case pinned && pn.SHA256 == now.SHA256:
			if _, was := p.f.Quarantined[t.Name]; was {
				delete(p.f.Quarantined, t.Name) // back to what was approved
				changed = true
			}
			continue
		case pinned:
			q = quarantine{Reason: "its definition changed since it was pinned (replaced under its name)", Pinned: &pn, Now: now}
		case gone[now.Body] != "":
			old := p.f.Pinned[gone[now.Body]]
			q = quarantine{Reason: fmt.Sprintf("it is %s renamed, with its definition kept", gone[now.Body]), Pinned: &old, Now: now, RenamedOf: gone[now.Body]}
		default:
			p.f.Pinned[t.Name] = now
			changed = true
			continue
		}
		if prev, ok := p.f.Quarantined[t.Name]; !ok || prev.Now.SHA256 != q.Now.SHA256 || prev.Reason != q.Reason {
			p.f.Quarantined[t.Name] = q
			changed = true
		}
		held[t.Name] = q
	}
	if changed && p.path != "" {
		if err := writePinFile(p.path, p.f); err != nil {
			return held, err
		}
		if st, err := os.Stat(p.path); err == nil {
			p.seen = st
		}
	}
	return held, nil
}

// quarantined returns the quarantine of name, if any.
func (p *pinStore) quarantined(name string) (quarantine, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	q, ok := p.f.Quarantined[name]
	return q, ok
}

// changedOnDisk reports whether the file changed since it was last read
// (an approval), reading it again if so.
func (p *pinStore) changedOnDisk() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	ok, _ := p.reloadLocked()
	return ok
}

// approve moves the named quarantined tools (every one with all) to the
// pins in the file at path, and returns the names approved, sorted. A
// renamed tool's old pin is dropped.
func approve(path string, names []string, all bool) ([]string, error) {
	f, err := readPinFile(path)
	if err != nil {
		return nil, err
	}
	if all {
		names = names[:0]
		for n := range f.Quarantined {
			names = append(names, n)
		}
	}
	var done []string
	for _, n := range names {
		q, ok := f.Quarantined[n]
		if !ok {
			return nil, fmt.Errorf("%s is not quarantined in %s (quarantined: %s)", n, path, orNone(quarantinedNames(f)))
		}
		f.Pinned[n] = q.Now
		if q.RenamedOf != "" {
			delete(f.Pinned, q.RenamedOf)
		}
		delete(f.Quarantined, n)
		done = append(done, n)
	}
	slices.Sort(done)
	if len(done) == 0 {
		return nil, nil
	}
	return done, writePinFile(path, f)
}

func quarantinedNames(f pinFile) string {
	var out []string
	for n := range f.Quarantined {
		out = append(out, n)
	}
	slices.Sort(out)
	s := ""
	for i, n := range out {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}
