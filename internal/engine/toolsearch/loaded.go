package toolsearch

import (
	"slices"
	"sync"
)

// LoadedSet records which deferred tools' schemas a session has loaded. A
// loaded tool stays loaded for later turns (its schema is in the history).
// It is safe for concurrent use. It satisfies [LoadedTools].
type LoadedSet struct {
	mu    sync.RWMutex
	names map[string]struct{}
}

// NewLoadedSet returns a set holding names.
func NewLoadedSet(names ...string) *LoadedSet {
	s := &LoadedSet{names: map[string]struct{}{}}
	for _, n := range names {
		s.names[n] = struct{}{}
	}
	return s
}

// Has reports whether name is loaded.
func (s *LoadedSet) Has(name string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, ok := s.names[name]
	return ok
}

// Add marks name loaded and reports whether it was new.
func (s *LoadedSet) Add(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.names[name]; ok {
		return false
	}
	s.names[name] = struct{}{}
	return true
}

// Forget marks names as no longer loaded.
func (s *LoadedSet) Forget(names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range names {
		delete(s.names, n)
	}
}

// Names returns the loaded names, sorted.
func (s *LoadedSet) Names() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, len(s.names))
	for n := range s.names {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
