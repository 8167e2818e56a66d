// Package cedict is a general Chinese → English dictionary for query
// translation: for a simplified Chinese word, a few plain English
// translations from CC-CEDICT, best first, and the set of CC-CEDICT's
// headwords for segmenting a run of Chinese into words.
//
// The data is built at development time from a CC-CEDICT release by
// internal/gen (see README.md for the source, every choice and the
// licence, CC BY-SA 4.0) and embedded gzipped; it is parsed once, on first
// use, into an immutable table any number of goroutines may read. Lookups
// do not allocate: they return slices of the shared table, which callers
// must not modify.
package cedict

//go:generate go run ./internal/gen -cedict $TOOLSHELF_CEDICT -out data/cedict-en.txt.gz
