// Package gztext reads and writes the gzipped text tables the search
// vocabulary embeds (WordNet relations, GloVe neighbours, CC-CEDICT): one
// way to write them so that a generated file is a function of its source
// alone, and one way to read them back.
package gztext

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"iter"
	"strings"
	"sync"
)

// Gzip compresses text at the best level with a zero header (no name, no
// time), so the output is a function of the input alone.
func Gzip(text []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(text); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Gunzip returns the text of gz; sizeHint (the text's expected length, 0
// if unknown) saves the copies of a growing buffer.
func Gunzip(gz []byte, sizeHint int) (string, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return "", fmt.Errorf("gunzip: %w", err)
	}
	var sb strings.Builder
	sb.Grow(sizeHint)
	if _, err := io.Copy(&sb, zr); err != nil {
		return "", fmt.Errorf("gunzip: %w", err)
	}
	return sb.String(), nil
}

// Lines yields the data lines of a table's text with their 1-based line
// numbers (comment lines, starting with "#", are counted but skipped),
// without the line break.
func Lines(text string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		n := 0
		for line := range strings.Lines(text) {
			n++
			if strings.HasPrefix(line, "#") {
				continue
			}
			if !yield(n, strings.TrimSuffix(line, "\n")) {
				return
			}
		}
	}
}

// Embedded returns a function that parses the embedded table gz once, on
// first use, and returns it after. The file is generated at build time and
// its package's tests parse it, so a parse error is a broken build, not
// bad input: it panics, naming pkg.
func Embedded[T any](pkg string, gz []byte, parse func([]byte) (T, error)) func() T {
	return sync.OnceValue(func() T {
		t, err := parse(gz)
		if err != nil {
			panic(pkg + ": embedded data: " + err.Error())
		}
		return t
	})
}
