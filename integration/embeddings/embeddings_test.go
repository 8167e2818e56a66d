package embeddings

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/search"
)

// fakeEmbedder is a deterministic OpenAI-compatible /v1/embeddings
// endpoint: a text's vector counts its lower-cased words hashed into dims
// buckets, so texts sharing words are close. It records every input.
type fakeEmbedder struct {
	mu     sync.Mutex
	inputs []string
	fail   bool
	delay  time.Duration
	dims   int
}

func (f *fakeEmbedder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	delay, fail := f.delay, f.fail
	f.mu.Unlock()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	if r.URL.Path != "/v1/embeddings" || r.Header.Get("Authorization") != "Bearer k" {
		http.Error(w, "bad path or key", http.StatusBadRequest)
		return
	}
	if fail {
		http.Error(w, "model not loaded", http.StatusInternalServerError)
		return
	}
	var req struct {
		Model      string   `json:"model"`
		Input      []string `json:"input"`
		Dimensions int      `json:"dimensions"`
	}
	if json.NewDecoder(r.Body).Decode(&req) != nil || req.Model != "fake" || req.Dimensions != f.dims {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.inputs = append(f.inputs, req.Input...)
	f.mu.Unlock()
	type item struct {
		Index     int       `json:"index"`
		Embedding []float64 `json:"embedding"`
	}
	var out struct {
		Data []item `json:"data"`
	}
	for i, in := range req.Input {
		v := make([]float64, f.dims)
		for _, w := range strings.FieldsFunc(strings.ToLower(in), func(r rune) bool { return !(r >= 'a' && r <= 'z') }) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%uint32(f.dims)]++
		}
		out.Data = append(out.Data, item{i, v})
	}
	_ = json.NewEncoder(w).Encode(out)
}

func (f *fakeEmbedder) seen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.inputs...)
}

var catalog = []*registry.Tool{
	{Name: "mcp__ci__cancel_workflow_run", Description: "Cancel a running workflow run; kill the job."},
	{Name: "mcp__ci__list_workflow_runs", Description: "List the runs of a workflow."},
	{Name: "mcp__notes__write_note", Description: "Save a note to a markdown file."},
}

func newRanker(t *testing.T, f *fakeEmbedder, dir string) (*Ranker, *httptest.Server) {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	r, err := New(Options{URL: srv.URL + "/v1/", Model: "fake", Key: "k", Dimensions: f.dims, Timeout: 300 * time.Millisecond, CacheDir: dir})
	require.NoError(t, err)
	return r, srv
}

func TestRankerRanksByCosine(t *testing.T) {
	f := &fakeEmbedder{dims: 256}
	r, _ := newRanker(t, f, "")
	ix, err := r.Index(context.Background(), catalog)
	require.NoError(t, err)
	hits, err := ix.Search(context.Background(), []string{"kill the job"}, 2)
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	assert.Equal(t, "mcp__ci__cancel_workflow_run", hits[0].Name)
	assert.Len(t, f.seen(), len(catalog)+1, "each tool once, then the query")
}

// TestChangedToolReembedded: a second index over the catalog with one tool
// changed embeds that tool only, in memory and across rankers on disk.
func TestChangedToolReembedded(t *testing.T) {
	f := &fakeEmbedder{dims: 64}
	dir := t.TempDir()
	r, _ := newRanker(t, f, dir)
	_, err := r.Index(context.Background(), catalog)
	require.NoError(t, err)
	require.Len(t, f.seen(), 3)

	changed := append([]*registry.Tool(nil), catalog...)
	c := *changed[2]
	c.Description = "Save a note to a text file."
	changed[2] = &c
	_, err = r.Index(context.Background(), changed)
	require.NoError(t, err)
	seen := f.seen()
	require.Len(t, seen, 4, "only the changed tool is embedded again")
	assert.Contains(t, seen[3], "text file")

	r2, _ := newRanker(t, f, dir) // a restart: vectors come from disk
	_, err = r2.Index(context.Background(), changed)
	require.NoError(t, err)
	assert.Len(t, f.seen(), 4, "nothing embedded after a restart")
}

// TestFailingEndpointFallsBack: with the endpoint failing or too slow,
// the hybrid answers with the lexical ranking, within the timeout; once
// the endpoint is back, the embeddings count again.
func TestFailingEndpointFallsBack(t *testing.T) {
	ctx := context.Background()
	lex, err := (&toolsearch.BM25F{}).Index(ctx, catalog)
	require.NoError(t, err)
	want, err := lex.Search(ctx, []string{"list workflow runs"}, 3)
	require.NoError(t, err)
	for _, f := range []*fakeEmbedder{{dims: 32, fail: true}, {dims: 32, delay: 2 * time.Second}} {
		r, _ := newRanker(t, f, "")
		ix, err := (&search.Hybrid{Lexical: &toolsearch.BM25F{}, Second: r}).Index(ctx, catalog)
		require.NoError(t, err)
		start := time.Now()
		got, err := ix.Search(ctx, []string{"list workflow runs"}, 3)
		require.NoError(t, err)
		assert.Equal(t, want, got)
		assert.Less(t, time.Since(start), 1500*time.Millisecond, "bounded by the timeout")
		f.mu.Lock()
		f.fail, f.delay = false, 0
		f.mu.Unlock()
		_, err = ix.Search(ctx, []string{"kill the job"}, 3)
		require.NoError(t, err)
		assert.NotEmpty(t, f.seen(), "the tools are embedded once the endpoint answers")
	}
}

func TestHybridThroughToolSearch(t *testing.T) {
	f := &fakeEmbedder{dims: 256}
	r, _ := newRanker(t, f, "")
	ix, err := (&search.Hybrid{Lexical: &toolsearch.BM25F{}, Second: r}).Index(context.Background(), catalog)
	require.NoError(t, err)
	hits, err := ix.Search(context.Background(), []string{"kill the job"}, 3)
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	assert.Equal(t, "mcp__ci__cancel_workflow_run", hits[0].Name)
}

func TestNewValidates(t *testing.T) {
	_, err := New(Options{Model: "m"})
	assert.ErrorIs(t, err, ErrOptions)
	_, err = New(Options{URL: "http://x/v1", Model: "m", Dimensions: -1})
	assert.ErrorIs(t, err, ErrOptions)
}

// hungEmbedder never answers: it holds each request until the client
// gives up, counting how many are held at once.
type hungEmbedder struct {
	mu            sync.Mutex
	held, maxHeld int
	release       chan struct{} // closed when the test ends
}

func (h *hungEmbedder) ServeHTTP(_ http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body) // the server notices a client gone once the body is read
	h.mu.Lock()
	h.held++
	h.maxHeld = max(h.maxHeld, h.held)
	h.mu.Unlock()
	select {
	case <-r.Context().Done():
	case <-h.release:
	}
	h.mu.Lock()
	h.held--
	h.mu.Unlock()
}

// TestHungEndpointSearchesSideBySide: issue 43 — with a 200 ms timeout,
// six concurrent searches queued behind one another (the slowest ~1.4 s):
// the index lock was held while the tools were embedded again. Now no
// lock is held while the endpoint is waited on: the six requests are held
// by the endpoint at the same time, and each search ends within its own
// timeout, failing with ErrEndpoint.
func TestHungEndpointSearchesSideBySide(t *testing.T) {
	const timeout = 200 * time.Millisecond
	h := &hungEmbedder{release: make(chan struct{})}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(h.release) }) // runs first
	r, err := New(Options{URL: srv.URL + "/v1", Model: "fake", Key: "k", Timeout: timeout})
	require.NoError(t, err)
	ix, err := r.Index(context.Background(), catalog)
	require.NoError(t, err, "the index is built; its searches fail")
	h.mu.Lock()
	h.maxHeld = 0 // count the searches' requests, not the index's
	h.mu.Unlock()

	const n = 6
	var wg sync.WaitGroup
	took := make([]time.Duration, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			_, errs[i] = ix.Search(context.Background(), []string{"kill the job"}, 3)
			took[i] = time.Since(start)
		}()
	}
	wg.Wait()
	for i := range n {
		assert.ErrorIs(t, errs[i], ErrEndpoint)
	}
	h.mu.Lock()
	maxHeld := h.maxHeld
	h.mu.Unlock()
	assert.GreaterOrEqual(t, maxHeld, n, "every search reached the endpoint at once, none waited for another")
	// Queued, the last would take six timeouts; side by side, one (the
	// margin is for a loaded machine).
	assert.Less(t, slices.Max(took), 4*timeout, "each search is bounded by its own timeout: %v", took)
}
