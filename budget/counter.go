package budget

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
	"github.com/toolshelf/toolshelf/internal/engine/estimate"
	"github.com/toolshelf/toolshelf/internal/engine/textfmt"
)

// Encoding names how a [Counter] counts: "o200k_base" (gpt-4o, gpt-4.1,
// gpt-5, o1, o3, o4) and "cl100k_base" (gpt-4, gpt-3.5) are tokenizer
// vocabularies and count exactly; "claude_estimate" scales an exact
// o200k_base count by ratios calibrated against Claude's tokenizer;
// "estimate" (Gemini, unknown models) counts characters. The two
// estimates mark every figure as an estimate. [NewCounter] rejects any
// other name.
type Encoding string

// The encodings a [Counter] knows.
const (
	o200kBase        Encoding = "o200k_base"  // gpt-4o, gpt-4.1, gpt-5, o1, o3, o4
	cl100kBase       Encoding = "cl100k_base" // gpt-4, gpt-3.5
	encodingEstimate Encoding = "estimate"    // Gemini, unknown models
)

// errUnknownEncoding is returned for an encoding name the package does not know.
var errUnknownEncoding = errors.New("budget: unknown encoding")

// encodings lists the accepted encoding names, for usage messages.
func encodings() []Encoding {
	return []Encoding{o200kBase, cl100kBase, encodingEstimate, claudeEstimate}
}

// parseEncoding checks an encoding name ("o200k_base", "cl100k_base",
// "estimate", "claude_estimate"). The error wraps errUnknownEncoding and
// lists the valid names.
func parseEncoding(name string) (Encoding, error) {
	for _, e := range encodings() {
		if string(e) == name {
			return e, nil
		}
	}
	return "", fmt.Errorf("%w %q: want one of o200k_base, cl100k_base, estimate, claude_estimate", errUnknownEncoding, name)
}

// encodingForModel maps a model name to its tokenizer: the GPT-4o, GPT-4.1,
// GPT-5 and o-series families to o200k_base, GPT-4 and GPT-3.5 to
// cl100k_base. Claude models (claude-*, anthropic/claude-*) map to
// claude_estimate, every other model (gemini-*, unknown names) to
// estimate; for both exact reports false: no tokenizer fits, so
// their figures are estimates.
func encodingForModel(model string) (enc Encoding, exact bool) {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 { // "openai/gpt-4o"
		m = m[i+1:]
	}
	m = strings.TrimPrefix(m, "ft:")
	switch {
	case hasFamily(m, "gpt-4o"), hasFamily(m, "chatgpt-4o"), hasFamily(m, "gpt-4.1"),
		hasFamily(m, "gpt-4.5"), hasFamily(m, "gpt-5"),
		hasFamily(m, "o1"), hasFamily(m, "o3"), hasFamily(m, "o4"):
		return o200kBase, true
	case hasFamily(m, "gpt-4"), hasFamily(m, "gpt-3.5"), hasFamily(m, "gpt-35"):
		return cl100kBase, true
	case hasFamily(m, "claude"):
		return claudeEstimate, false
	}
	return encodingEstimate, false
}

// hasFamily reports whether model is family or family followed by a '-',
// '.', ':' or '@' suffix (a dated or sized variant): "o1" matches "o1-mini"
// but not "o10".
func hasFamily(model, family string) bool {
	if !strings.HasPrefix(model, family) {
		return false
	}
	rest := model[len(family):]
	return rest == "" || strings.ContainsRune("-.:@", rune(rest[0]))
}

// Kind says how a section's text is estimated when no tokenizer fits: prose
// at 4 characters a token, dense JSON at 1.3, or, for "claude_estimate",
// the o200k count times the kind's calibrated ratio. Exact counts ignore it.
type Kind uint8

// The two kinds of text.
const (
	KindProse Kind = iota
	KindJSON
)

func (k Kind) String() string {
	if k == KindJSON {
		return "json"
	}
	return "prose"
}

// Counter counts tokens in one encoding. The vocabulary is loaded on first
// use (o200k_base costs ~7 MB of heap and tens of milliseconds), never
// before: a harness that never asks for tokens never pays it. Counts of
// frozen text are cached by content, so measuring turn after turn only
// tokenizes what is new. The cache is bounded in bytes (8 MiB, see
// [NewCounter]) and drops the least recently used texts: a counter shared
// by every session of a long-running harness does not grow with the
// number of conversations it has seen. A Counter is safe for concurrent
// use; share one per encoding.
type Counter struct {
	enc Encoding

	once   sync.Once
	loaded atomic.Bool
	codec  tokenizer.Codec
	err    error

	mu     sync.Mutex
	cache  countCache
	hits   int
	misses int
}

// defaultCacheBytes bounds a counter's cache of frozen counts: the texts it
// keeps plus [cacheEntryOverhead] per text. 8 MiB holds the prefixes of a
// few dozen distinct catalogs (a 254-tool prefix is ~110 KB) and the recent
// messages of the conversations in flight.
const defaultCacheBytes = 8 << 20

// NewCounter returns a counter for enc (see [Encoding] for the names) with
// a cache of 8 MiB: the texts it keeps plus 128 bytes each, enough for the
// prefixes of a few dozen distinct catalogs and the recent messages of the
// conversations in flight. It does not load the vocabulary. An unknown
// name is an error that lists the valid ones.
func NewCounter(enc Encoding) (*Counter, error) {
	return NewCounterCache(enc, defaultCacheBytes)
}

// NewCounterCache is [NewCounter] with a cache of at most cacheBytes
// (texts plus 128 bytes each); 0 or less caches nothing. A process that
// shares one counter among many sessions bounds its memory with it, and
// reads what the cache holds with [Counter.CacheBytes].
func NewCounterCache(enc Encoding, cacheBytes int) (*Counter, error) {
	if _, err := parseEncoding(string(enc)); err != nil {
		return nil, err
	}
	c := &Counter{enc: enc}
	c.cache.init(cacheBytes)
	return c, nil
}

// CounterForModel returns a counter for the model's tokenizer: the GPT-4o,
// GPT-4.1, GPT-5 and o-series families count with o200k_base, GPT-4 and
// GPT-3.5 with cl100k_base (a provider prefix, "openai/gpt-4o", and "ft:"
// are ignored). No tokenizer fits other models, so their counter
// estimates: claude-* models with claude_estimate, every other model
// (gemini-*, unknown names) with the character estimate.
func CounterForModel(model string) *Counter {
	enc, _ := encodingForModel(model)
	c, _ := NewCounter(enc) // enc is always valid
	return c
}

// Encoding returns the counter's encoding.
func (c *Counter) Encoding() Encoding { return c.enc }

// Exact reports whether the counter tokenizes (true) or estimates (false).
func (c *Counter) Exact() bool { return c.enc == o200kBase || c.enc == cl100kBase }

// byChars reports whether the counter estimates from characters alone.
func (c *Counter) byChars() bool { return c.enc == encodingEstimate }

// vocabulary is the tokenizer the counter runs: [claudeEstimate] counts
// with o200k_base and scales.
func (c *Counter) vocabulary() Encoding {
	if c.enc == claudeEstimate {
		return o200kBase
	}
	return c.enc
}

func (c *Counter) load() (tokenizer.Codec, error) {
	c.once.Do(func() {
		c.codec, c.err = tokenizer.Get(tokenizer.Encoding(c.vocabulary()))
		if c.err != nil {
			c.err = fmt.Errorf("budget: loading %s: %w", c.vocabulary(), c.err)
		}
		c.loaded.Store(true)
	})
	return c.codec, c.err
}

// Tokens is a token count, exact or an estimate.
type Tokens struct {
	N int `json:"n"`
	// Estimate marks a count made from characters, not by a tokenizer.
	Estimate bool `json:"estimate"`
}

// String formats the count with thousands separators, prefixed by "~" when
// it is an estimate.
func (t Tokens) String() string {
	if t.Estimate {
		return "~" + textfmt.Thousands(t.N)
	}
	return textfmt.Thousands(t.N)
}

// Add returns the sum; the sum is an estimate if either part is.
func (t Tokens) Add(u Tokens) Tokens {
	return Tokens{N: t.N + u.N, Estimate: t.Estimate || u.Estimate}
}

// Count returns the tokens of text. An estimating counter uses the kind's
// rate; a tokenizing one ignores kind. Nothing is cached: [Counter.Measure]
// caches the counts of frozen sections, which recur.
func (c *Counter) Count(kind Kind, text string) Tokens {
	if c.byChars() {
		return Tokens{N: estimateKind(kind, text), Estimate: true}
	}
	return c.scale(kind, c.tokenize(kind, text))
}

// countFrozenTokens is [Counter.Count] for text that recurs unchanged (a frozen
// prefix, messages already sent): the count is cached by content.
func (c *Counter) countFrozenTokens(kind Kind, text string) Tokens {
	t, _ := c.countFrozen(kind, text)
	return t
}

// countFrozen returns the tokens and runes of a recurring text. A text met
// again as the same string (same bytes in memory: a session's retained
// prefix or message) is found without reading it; equal content elsewhere
// is found by hashing it once.
func (c *Counter) countFrozen(kind Kind, text string) (Tokens, int) {
	t, r := c.countFrozenVocab(kind, text)
	return c.scale(kind, t), r
}

// countFrozenVocab is countFrozen before [Counter.scale]: the count of the
// counter's vocabulary, cached.
func (c *Counter) countFrozenVocab(kind Kind, text string) (Tokens, int) {
	if c.byChars() {
		return c.Count(kind, text), runeCount(text)
	}
	c.mu.Lock()
	e := c.cache.get(text)
	if e != nil {
		c.hits++
		n, r := e.tokens, e.runes
		c.mu.Unlock()
		return Tokens{N: n}, r
	}
	c.mu.Unlock()
	t := c.tokenize(kind, text)
	r := runeCount(text)
	if t.Estimate {
		return t, r
	}
	c.mu.Lock()
	c.cache.put(text, t.N, r)
	c.misses++
	c.mu.Unlock()
	return t, r
}

// CacheBytes returns the bytes the counter's cache holds now (texts plus
// 128 bytes each) and its bound (see [NewCounterCache]).
func (c *Counter) CacheBytes() (held, limit int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cache.bytes, c.cache.limit
}

// tokenize counts exactly, or falls back to a marked estimate if the
// vocabulary cannot load or the text cannot be split (a figure the package
// cannot measure is never passed off as exact).
func (c *Counter) tokenize(kind Kind, text string) Tokens {
	codec, err := c.load()
	if err == nil {
		n, err := codec.Count(text)
		if err == nil {
			return Tokens{N: n}
		}
	}
	return Tokens{N: estimateKind(kind, text), Estimate: true}
}

func estimateKind(kind Kind, text string) int {
	if kind == KindJSON {
		return estimate.JSON([]byte(text))
	}
	return estimate.Prose(text)
}

// estimateRunes estimates the tokens of runes characters of the kind, with
// one rounding (up) for the whole amount: summing per-piece estimates would
// round every piece.
func estimateRunes(kind Kind, runes int) int {
	rate := estimate.ProseCharsPerToken
	if kind == KindJSON {
		rate = estimate.JSONCharsPerToken
	}
	return int(math.Ceil(float64(runes) / rate))
}

// runeCount is utf8.RuneCountInString, the package's unit of "characters".
func runeCount(s string) int { return utf8.RuneCountInString(s) }
