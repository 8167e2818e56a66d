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
	"strings"
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
