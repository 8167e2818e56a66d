package embeddings

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/search"
)

// Errors of this package.
var (
	// ErrOptions reports an invalid [Options] value.
	ErrOptions = errors.New("embeddings: options")
	// ErrEndpoint reports a failed call to the endpoint.
	ErrEndpoint = errors.New("embeddings: endpoint")
)

// Defaults of [Options], stated in its field docs.
const (
	defaultTimeout   = 5 * time.Second
	defaultBatchSize = 64
	maxResponseBytes = 64 << 20
)

// Options configures a [Ranker].
type Options struct {
	// URL is the API's base URL, up to and including "/v1":
	// "https://api.openai.com/v1", "http://localhost:11434/v1" (Ollama).
	// Requests go to URL + "/embeddings".
	URL string
	// Model names the embedding model ("text-embedding-3-small",
	// "nomic-embed-text").
	Model string
	// Key, when set, is sent as "Authorization: Bearer <Key>".
	Key string
	// Dimensions, when positive, asks for vectors of that length (models
	// that support it); 0 leaves the model's own.
	Dimensions int
	// Timeout bounds each call to the endpoint; 0 means 5 seconds.
	Timeout time.Duration
	// BatchSize bounds the inputs of one call; 0 means 64.
	BatchSize int
	// CacheDir, when set, keeps tool vectors on disk, one file per content
	// hash, so that a restart does not embed the catalog again.
	CacheDir string
	// Client is the HTTP client; nil means http.DefaultClient.
	Client *http.Client
}

// Ranker embeds tools and queries through the endpoint. It is safe for
// concurrent use; its vector cache is shared by every index it builds.
type Ranker struct {
	opts  Options
	mu    sync.Mutex
	cache map[string][]float32 // content hash → unit vector
}

// New returns a Ranker for opts. It does not call the endpoint.
func New(opts Options) (*Ranker, error) {
	if opts.URL == "" || opts.Model == "" {
		return nil, fmt.Errorf("%w: URL and Model are required", ErrOptions)
	}
	if opts.Dimensions < 0 || opts.BatchSize < 0 || opts.Timeout < 0 {
		return nil, fmt.Errorf("%w: Dimensions, BatchSize and Timeout must not be negative", ErrOptions)
	}
	if opts.Timeout == 0 {
		opts.Timeout = defaultTimeout
	}
	if opts.BatchSize == 0 {
		opts.BatchSize = defaultBatchSize
	}
	if opts.Client == nil {
		opts.Client = http.DefaultClient
	}
	opts.URL = strings.TrimRight(opts.URL, "/")
	return &Ranker{opts: opts, cache: map[string][]float32{}}, nil
}

// toolText is what a tool is embedded as: its name's words, its
// description and its parameters' names and descriptions.
func toolText(t *registry.Tool) string {
	var b strings.Builder
	name := t.Name
	if t.Source == registry.SourceMCP && t.OriginalName != "" {
		// The server's own name, without mcp__<server>__.
		name = t.OriginalName
	}
	b.WriteString(strings.NewReplacer("_", " ", "-", " ").Replace(name))
	b.WriteString(": ")
	b.WriteString(t.Description)
	if t.InputSchema != nil {
		keys := make([]string, 0, len(t.InputSchema.Properties))
		for k := range t.InputSchema.Properties {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			b.WriteString("\n")
			b.WriteString(k)
			if p := t.InputSchema.Properties[k]; p != nil && p.Description != "" {
				b.WriteString(": ")
				b.WriteString(p.Description)
			}
		}
	}
	return b.String()
}

// key is the content hash of one embedding input under these options.
func (r *Ranker) key(text string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00", r.opts.Model, r.opts.Dimensions)
	h.Write([]byte(text))
	return hex.EncodeToString(h.Sum(nil))
}

// Index embeds the tools whose vectors are not cached yet. When the
// endpoint fails, the index is built without them: its searches fail
// (search.Hybrid then ranks lexically) and try again to embed them.
func (r *Ranker) Index(ctx context.Context, tools []*registry.Tool) (search.Index, error) {
	ix := &index{r: r, names: make([]string, len(tools)), keys: make([]string, len(tools)), texts: make([]string, len(tools))}
	for i, t := range tools {
		ix.names[i] = t.Name
		ix.texts[i] = toolText(t)
		ix.keys[i] = r.key(ix.texts[i])
	}
	ix.err = r.fill(ctx, ix.keys, ix.texts)
	return ix, nil
}

// fill makes sure every key has a vector: from memory, from disk, or from
// the endpoint in batches.
func (r *Ranker) fill(ctx context.Context, keys, texts []string) error {
	var missK, missT []string
	r.mu.Lock()
	for i, k := range keys {
		if _, ok := r.cache[k]; ok {
			continue
		}
		if v, ok := r.readDisk(k); ok {
			r.cache[k] = v
			continue
		}
		if !contains(missK, k) {
			missK = append(missK, k)
			missT = append(missT, texts[i])
		}
	}
	r.mu.Unlock()
	for start := 0; start < len(missK); start += r.opts.BatchSize {
		end := min(start+r.opts.BatchSize, len(missK))
		vs, err := r.embed(ctx, missT[start:end])
		if err != nil {
			return err
		}
		r.mu.Lock()
		for i, v := range vs {
			r.cache[missK[start+i]] = v
			r.writeDisk(missK[start+i], v)
		}
		r.mu.Unlock()
	}
	return nil
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// embed calls the endpoint for inputs, within the timeout, and returns
// their unit vectors in order.
func (r *Ranker) embed(ctx context.Context, inputs []string) ([][]float32, error) {
	ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	body := map[string]any{"model": r.opts.Model, "input": inputs}
	if r.opts.Dimensions > 0 {
		body["dimensions"] = r.opts.Dimensions
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrEndpoint, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.opts.URL+"/embeddings", bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrEndpoint, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if r.opts.Key != "" {
		req.Header.Set("Authorization", "Bearer "+r.opts.Key)
	}
	resp, err := r.opts.Client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrEndpoint, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrEndpoint, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: %s: %s", ErrEndpoint, resp.Status, clip(string(data), 200))
	}
	var out struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("%w: reply: %v", ErrEndpoint, err)
	}
	if len(out.Data) != len(inputs) {
		return nil, fmt.Errorf("%w: %d vectors for %d inputs", ErrEndpoint, len(out.Data), len(inputs))
	}
	vs := make([][]float32, len(inputs))
	dim := -1
	for _, d := range out.Data {
		if d.Index < 0 || d.Index >= len(inputs) || vs[d.Index] != nil {
			return nil, fmt.Errorf("%w: reply index %d out of place", ErrEndpoint, d.Index)
		}
		if dim < 0 {
			dim = len(d.Embedding)
		}
		if len(d.Embedding) == 0 || len(d.Embedding) != dim {
			return nil, fmt.Errorf("%w: vectors of differing or zero length", ErrEndpoint)
		}
		vs[d.Index] = unit(d.Embedding)
	}
	return vs, nil
}

// unit returns v scaled to length 1 (a zero vector stays zero).
func unit(v []float64) []float32 {
	var n float64
	for _, x := range v {
		n += x * x
	}
	out := make([]float32, len(v))
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return out
	}
	n = math.Sqrt(n)
	for i, x := range v {
		out[i] = float32(x / n)
	}
	return out
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// readDisk and writeDisk keep one vector per file, little-endian float32.
func (r *Ranker) readDisk(key string) ([]float32, bool) {
	if r.opts.CacheDir == "" {
		return nil, false
	}
	raw, err := os.ReadFile(filepath.Join(r.opts.CacheDir, key+".f32"))
	if err != nil || len(raw) == 0 || len(raw)%4 != 0 {
		return nil, false
	}
	v := make([]float32, len(raw)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return v, true
}

func (r *Ranker) writeDisk(key string, v []float32) {
	if r.opts.CacheDir == "" {
		return
	}
	raw := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(x))
	}
	if os.MkdirAll(r.opts.CacheDir, 0o755) != nil {
		return
	}
	tmp := filepath.Join(r.opts.CacheDir, key+".tmp")
	if os.WriteFile(tmp, raw, 0o644) == nil {
		_ = os.Rename(tmp, filepath.Join(r.opts.CacheDir, key+".f32"))
	}
}

// index ranks its tools by cosine with the query's vector.
type index struct {
	r                  *Ranker
	names, keys, texts []string
	mu                 sync.Mutex
	err                error       // the last failure to embed the tools
	vs                 [][]float32 // the tools' vectors, once all are there
}

// vectors returns the tools' vectors, embedding those still missing; once
// all are there they are kept. No lock is held while the endpoint is
// called: concurrent searches of an index whose tools are not embedded yet
// each call it, each within its own deadline, rather than wait in line
// behind one another's timeouts.
func (ix *index) vectors(ctx context.Context) ([][]float32, error) {
	ix.mu.Lock()
	vs, missing := ix.vs, ix.err != nil
	ix.mu.Unlock()
	if vs != nil {
		return vs, nil
	}
	if missing {
		if err := ix.r.fill(ctx, ix.keys, ix.texts); err != nil {
			ix.mu.Lock()
			ix.err = err
			ix.mu.Unlock()
			return nil, err
		}
	}
	vs = make([][]float32, len(ix.keys))
	ix.r.mu.Lock()
	for i, k := range ix.keys {
		v, ok := ix.r.cache[k]
		if !ok {
			ix.r.mu.Unlock()
			err := fmt.Errorf("%w: no vector for %s", ErrEndpoint, ix.names[i])
			ix.mu.Lock()
			ix.err = err
			ix.mu.Unlock()
			return nil, err
		}
		vs[i] = v
	}
	ix.r.mu.Unlock()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.vs == nil {
		ix.vs, ix.err = vs, nil
	}
	return ix.vs, nil
}

// Search embeds the query (its strings joined by a space) and returns the
// limit tools of highest cosine, ties by name. It fails when the endpoint
// does. One deadline, Options.Timeout from the call, bounds the whole
// search: embedding tools still missing and the query together.
func (ix *index) Search(ctx context.Context, queries []string, limit int) ([]search.Hit, error) {
	if limit <= 0 || len(ix.names) == 0 {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, ix.r.opts.Timeout)
	defer cancel()
	vs, err := ix.vectors(ctx)
	if err != nil {
		return nil, err
	}
	q, err := ix.r.embed(ctx, []string{strings.Join(queries, " ")})
	if err != nil {
		return nil, err
	}
	hits := make([]search.Hit, 0, len(vs))
	for i, v := range vs {
		if len(v) != len(q[0]) {
			return nil, fmt.Errorf("%w: query vector of length %d, tool vectors of %d", ErrEndpoint, len(q[0]), len(v))
		}
		var dot float32
		for j := range v {
			dot += v[j] * q[0][j]
		}
		if dot > 0 {
			hits = append(hits, search.Hit{Name: ix.names[i], Score: float64(dot)})
		}
	}
	sort.Slice(hits, func(a, b int) bool {
		if hits[a].Score != hits[b].Score {
			return hits[a].Score > hits[b].Score
		}
		return hits[a].Name < hits[b].Name
	})
	return hits[:min(len(hits), limit)], nil
}
