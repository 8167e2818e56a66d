// Command gen writes internal/engine/lexicon/data/wordnet-syn.txt.gz from the
// WordNet 3.0 files of Debian's wordnet-base package:
//
//	apt-get install wordnet-base
//	go generate ./internal/engine/lexicon
//
// It is a build-time tool; the library never reads WordNet at run time.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/toolshelf/toolshelf/internal/engine/gztext"

	"github.com/toolshelf/toolshelf/internal/engine/lexicon/internal/wordnet"
)

func main() {
	dir := flag.String("wordnet", "/usr/share/wordnet", "directory holding WordNet's cntlist.rev, index.* and data.* files")
	out := flag.String("out", "data/wordnet-syn.txt.gz", "file to write")
	opt := wordnet.DefaultOptions
	flag.StringVar(&opt.Further, "further", opt.Further, "further relation kinds to follow, closest first (h hypernym, o hyponym, c co-hyponym, t similar, g verb group, e also see, a attribute)")
	flag.IntVar(&opt.MaxPerKind, "maxperkind", opt.MaxPerKind, "relations of each further kind kept per lemma")
	flag.IntVar(&opt.GlossSenses, "glosssenses", opt.GlossSenses, "best ranked senses whose definitions give gloss relations (0 for none)")
	flag.IntVar(&opt.GlossMinCount, "glossmincount", opt.GlossMinCount, "least tag count (cntlist.rev) of a sense whose definition counts")
	flag.IntVar(&opt.MaxGloss, "maxgloss", opt.MaxGloss, "gloss relations kept per lemma")
	flag.Parse()
	if err := run(*dir, *out, opt); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(dir, out string, opt wordnet.Options) error {
	text, err := wordnet.Build(dir, opt)
	if err != nil {
		return err
	}
	gz, err := gztext.Gzip(text)
	if err != nil {
		return err
	}
	return os.WriteFile(out, gz, 0o644)
}
