package request

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"math"
	"reflect"
	"slices"
	"sync"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/search"
)

type key [sha256.Size]byte

// Cache holds frozen prefixes (and their searchers) by content, so that
// sessions created from equal inputs share one copy: a harness serving
// 1,000 conversations with the same tools holds one prefix. A snapshot with
// a new version but the same content (an MCP server that reconnected with
// the same tools) maps to the same entry. It is safe for concurrent use.
//
// A cache is bounded: past [Cache.Limit] the least recently used prefix is
// dropped. Sessions keep the prefix they were created with, so eviction
// never changes a live session's bytes; a later session with the same
// inputs freezes an identical copy.
//
// The zero value is an empty cache, ready to use: share one among the
// sessions of a process through [Config.Cache].
type Cache struct {
	// Limit is how many frozen prefixes the cache holds before it evicts
	// the least recently used; 0 means 256. Each distinct set of inputs
	// (snapshot content, policy, view, provider ...) is one entry; a
	// registry that keeps changing would otherwise grow the cache without
	// bound. Set it before the cache's first use.
	Limit int

	mu     sync.Mutex
	clock  uint64
	frozen map[key]*cacheEntry
	snaps  map[*registry.Snapshot]*snapEntry
}

// defaultCacheLimit is the limit of a cache whose Limit is 0.
const defaultCacheLimit = 256

type cacheEntry struct {
	f    *frozenPrefix
	used uint64
}

type snapEntry struct {
	k    key
	used uint64
}

// Len returns the number of distinct frozen prefixes the cache holds, at
// most [Cache.Limit]: a harness serving many sessions reads it to size the
// limit.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.frozen)
}

// limit returns the cache's bound and makes its maps; c.mu is held.
func (c *Cache) limit() int {
	if c.frozen == nil {
		c.frozen, c.snaps = map[key]*cacheEntry{}, map[*registry.Snapshot]*snapEntry{}
	}
	if c.Limit <= 0 {
		return defaultCacheLimit
	}
	return c.Limit
}

// get returns the frozen prefix for cfg seen through view, building it once.
func (c *Cache) get(cfg *Config, view deferral.View) (*frozenPrefix, error) {
	c.mu.Lock()
	c.limit()
	se, ok := c.snaps[cfg.Snapshot]
	c.mu.Unlock()
	var sk key
	if ok {
		sk = se.k
	} else {
		sk = snapshotKey(cfg.Snapshot) // hashing a snapshot is slow: not under the lock
	}
	k := configKey(cfg, view, sk)
	c.mu.Lock()
	c.clock++
	if se, ok := c.snaps[cfg.Snapshot]; ok {
		se.used = c.clock
	} else {
		c.snaps[cfg.Snapshot] = &snapEntry{k: sk, used: c.clock}
		evictOldest(c.snaps, c.limit(), func(e *snapEntry) uint64 { return e.used })
	}
	e, ok := c.frozen[k]
	if ok {
		e.used = c.clock
	}
	c.mu.Unlock()
	if ok {
		return e.f, nil
	}
	f, err := freeze(cfg, view)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clock++
	if old, ok := c.frozen[k]; ok {
		old.used = c.clock
		return old.f, nil
	}
	c.frozen[k] = &cacheEntry{f: f, used: c.clock}
	evictOldest(c.frozen, c.limit(), func(e *cacheEntry) uint64 { return e.used })
	return f, nil
}

// evictOldest drops the least recently used entries of m until it holds at
// most limit. The scan is linear, and runs only when an entry is added.
func evictOldest[K comparable, V any](m map[K]V, limit int, used func(V) uint64) {
	for len(m) > limit {
		var oldest K
		first := true
		var min uint64
		for k, v := range m {
			if u := used(v); first || u < min {
				oldest, min, first = k, u, false
			}
		}
		delete(m, oldest)
	}
}

// hasher writes length-prefixed fields, so that no two inputs collide by
// concatenation.
type hasher struct{ h hash.Hash }

func (h hasher) str(s string) {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
	h.h.Write(n[:])
	h.h.Write([]byte(s))
}

func (h hasher) bytes(b []byte) { h.str(string(b)) }

func (h hasher) num(v uint64) {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], v)
	h.h.Write(n[:])
}

func (h hasher) strs(ss []string) {
	h.num(uint64(len(ss)))
	for _, s := range ss {
		h.str(s)
	}
}

func (h hasher) sortedMap(m map[string]string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	h.num(uint64(len(keys)))
	for _, k := range keys {
		h.str(k)
		h.str(m[k])
	}
}

func (h hasher) sum() (k key) {
	copy(k[:], h.h.Sum(nil))
	return k
}

// snapshotKey hashes everything in a snapshot that can reach the model or
// the plan. The version is left out on purpose: equal content, equal key.
func snapshotKey(s *registry.Snapshot) key {
	h := hasher{sha256.New()}
	for _, g := range s.Groups() {
		h.str(g.Name)
		h.num(uint64(g.Source))
		h.str(g.Description)
		h.num(uint64(g.DefaultDefer))
		cfgs := make(map[string]string, len(g.Configs))
		for k, v := range g.Configs {
			cfgs[k] = v.String()
		}
		h.sortedMap(cfgs)
		h.num(boolNum(g.AlwaysLoad))
		h.str(string(g.Tier))
		h.num(boolNum(g.TrustAnnotations))
	}
	for _, t := range s.Tools() {
		h.str(t.Name)
		h.str(t.OriginalName)
		h.str(t.Description)
		h.num(boolNum(t.Template))
		h.bytes(t.RawSchema)
		a, _ := jsonx.Marshal(t.Annotations)
		h.bytes(a)
		h.str(string(t.Tier))
		h.num(uint64(t.DeferLoading))
		h.str(t.Group)
		h.num(uint64(t.Source))
		h.strs(t.SearchHints)
		h.strs(t.Injected)
	}
	return h.sum()
}

// configKey hashes every input of a frozen prefix.
func configKey(cfg *Config, view deferral.View, snap key) key {
	h := hasher{sha256.New()}
	h.bytes(snap[:])
	h.str(string(cfg.Provider))
	h.str(cfg.Model)
	h.str(cfg.System)
	items := slices.Clone(cfg.SystemItems)
	slices.Sort(items)
	h.strs(items)
	extra := make(map[string]string, len(cfg.Extra))
	for k, v := range cfg.Extra {
		extra[k] = string(jsonx.AppendCompact(nil, v))
	}
	h.sortedMap(extra)
	h.sortedMap(cfg.SessionVars)
	h.sortedMap(cfg.StaticVars)
	h.str(view.Mode.Name)
	h.strs(view.Mode.Allow)
	h.num(boolNum(view.Mode.ReadOnly))
	h.str(string(view.Tier))
	h.num(boolNum(view.Elevated))
	h.str(string(cfg.searchMode()))
	p := cfg.Policy
	if p == nil {
		p = &deferral.Policy{}
	}
	h.num(uint64(p.Default))
	h.num(boolNum(cfg.SelfBuilt))
	h.num(boolNum(cfg.Strict))
	// Counts keep layer boundaries apart: without them a layer named like
	// a rule would hash as that rule.
	h.num(uint64(len(p.Layers)))
	for _, l := range p.Layers {
		h.str(l.Name)
		h.num(uint64(len(l.Rules)))
		for _, r := range l.Rules {
			h.str(r)
		}
	}
	h.num(uint64(p.Window))
	h.num(math.Float64bits(p.AutoShare))
	if p.Size != nil {
		// A size function is compared through its policy's identity: two
		// closures can share code and differ in what they capture.
		h.str(fmt.Sprintf("%p", cfg.Policy))
	}
	searchKey(h, cfg.Search)
	deniedKey(h, cfg)
	return h.sum()
}

// searchKey hashes search options by value: sessions that each pass their
// own &search.Options{} share one prefix and one searcher (keyed by the
// pointer, 20 equal sessions froze 20 prefixes and built 20 indexes). Nil
// hashes as the zero value, which means the same defaults. Fields are
// walked by reflection so that an option added later is never left out;
// a Ranker (or any other pointer, function or interface) is compared by
// identity, since it may hold functions and state.
func searchKey(h hasher, o *search.Options) {
	var v search.Options
	if o != nil {
		v = *o
	}
	rv := reflect.ValueOf(v)
	h.num(uint64(rv.NumField()))
	for i := range rv.NumField() {
		h.str(rv.Type().Field(i).Name)
		hashValue(h, rv.Field(i))
	}
}

func hashValue(h hasher, v reflect.Value) {
	switch v.Kind() {
	case reflect.Bool:
		h.num(boolNum(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		h.num(uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		h.num(v.Uint())
	case reflect.Float32, reflect.Float64:
		h.num(math.Float64bits(v.Float()))
	case reflect.String:
		h.str(v.String())
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() != reflect.String {
			h.str(fmt.Sprintf("%T@%x", v.Interface(), v.Pointer()))
			return
		}
		h.num(uint64(v.Len()))
		for i := range v.Len() {
			hashValue(h, v.Index(i))
		}
	case reflect.Interface:
		if v.IsNil() {
			h.str("nil")
			return
		}
		hashValue(h, v.Elem())
	case reflect.Pointer, reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		h.str(fmt.Sprintf("%s@%x", v.Type(), v.Pointer()))
	default: // a struct value: compared as printed, functions by address
		h.str(fmt.Sprintf("%T%#v", v.Interface(), v.Interface()))
	}
}

func boolNum(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
