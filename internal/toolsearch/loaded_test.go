package toolsearch

import (
	"slices"
	"sync"
)

// LoadedSet is search.LoadedSet for this package's tests (which cannot
// import search: it imports this package).
type LoadedSet struct {
	mu    sync.RWMutex
	names map[string]struct{}
}

func NewLoadedSet(names ...string) *LoadedSet {
	s := &LoadedSet{names: map[string]struct{}{}}
	for _, n := range names {
		s.names[n] = struct{}{}
	}
	return s
}

func (s *LoadedSet) Has(name string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, ok := s.names[name]
	return ok
}

func (s *LoadedSet) Add(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.names[name]; ok {
		return false
	}
	s.names[name] = struct{}{}
	return true
}

func (s *LoadedSet) Forget(names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range names {
		delete(s.names, n)
	}
}

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
