// Package lexicon is a general English lexical source for query
// expansion: for a word, the words WordNet 3.0 relates to it, as synonyms
// (members of the same synset), derivations (WordNet's "+" pointers,
// e.g. notify/notification) or gloss words (content words of the
// definitions of its most frequent senses, e.g. remember/memory), each
// with the rank of the word sense that links them, so a ranker can weight
// expansions below the literal word and cap how much they add.
//
// The data is built at development time from Debian's wordnet-base by
// internal/gen (see README.md for every choice and the WordNet licence)
// and embedded gzipped; it is parsed once, on first use, into immutable
// tables that any number of goroutines may read. Lookups do not allocate:
// they return slices of the shared tables, which callers must not modify.
package lexicon

//go:generate go run ./internal/gen -wordnet /usr/share/wordnet -out data/wordnet-syn.txt.gz
