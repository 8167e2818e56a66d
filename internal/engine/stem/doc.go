// Package stem is the Snowball English ("Porter2") stemmer, written for
// toolshelf's search index and queries so that both sides reduce a word to
// the same stem: "deleted", "deleting" and "deletes" all become "delet",
// while "news" and "new" stay apart.
//
// It follows the current algorithm of the Snowball project
// (algorithms/english.sbl, including the 2025 additions: the R1 prefixes
// gener/commun/arsen/past/univers/later/emerg/organ/inter, -ogist, and the
// -ing and -eed exceptions that replaced the old exception list 2) and is
// checked against every pair of the project's English test vocabulary
// (testdata/english.txt.gz; see testdata/README.md).
//
// The package owns no state. [Stem] allocates only when the stem is not a
// prefix of the word (happy -> happi); [AppendStem] never allocates when the
// destination has room. Only ASCII is stemmed: a word holding any byte >=
// 0x80 is returned unchanged. Input is expected in lower case; upper-case
// letters are treated as consonants, as Snowball does.
package stem
