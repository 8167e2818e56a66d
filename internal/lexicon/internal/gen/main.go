// Command gen writes internal/lexicon/data/wordnet-syn.txt.gz from the
// WordNet 3.0 files of Debian's wordnet-base package:
//
//	apt-get install wordnet-base
//	go generate ./internal/lexicon
//
// It is a build-time tool; the library never reads WordNet at run time.
package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"os"

	"github.com/toolshelf/toolshelf/internal/lexicon/internal/wordnet"
)

func main() {
	dir := flag.String("wordnet", "/usr/share/wordnet", "directory holding WordNet's cntlist.rev, index.* and data.* files")
	out := flag.String("out", "data/wordnet-syn.txt.gz", "file to write")
	flag.Parse()
	if err := run(*dir, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(dir, out string) error {
	text, err := wordnet.Build(dir, wordnet.DefaultOptions)
	if err != nil {
		return err
	}
	// A zero gzip header (no name, no time) keeps the output a function
	// of the input alone.
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := zw.Write(text); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}
