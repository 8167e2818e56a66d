// Command gen writes internal/engine/cedict/data/cedict-en.txt.gz from a
// CC-CEDICT release (cedict_1_0_ts_utf-8_mdbg.txt, plain or gzipped):
//
//	go generate ./internal/engine/cedict   # with TOOLSHELF_CEDICT=/path/to/cedict_1_0_ts_utf-8_mdbg.txt[.gz]
//
// It is a development-time tool; the library never reads CC-CEDICT at run
// time. See ../../README.md for the source and every choice.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/toolshelf/toolshelf/internal/engine/cedict/internal/build"
)

func main() {
	src := flag.String("cedict", os.Getenv("TOOLSHELF_CEDICT"), "CC-CEDICT file, plain or gzipped (default $TOOLSHELF_CEDICT)")
	out := flag.String("out", "data/cedict-en.txt.gz", "file to write")
	flag.Parse()
	if err := run(*src, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(src, out string) error {
	if src == "" {
		return fmt.Errorf("no source: pass -cedict FILE or set TOOLSHELF_CEDICT")
	}
	raw, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	text, st, err := build.Build(raw, build.DefaultOptions)
	if err != nil {
		return err
	}
	gz, err := build.Gzip(text)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "gen: %d entries read, %d headwords, %d translated, %d translations, %d bytes text, %d gzipped\n",
		st.Entries, st.Headwords, st.Translated, st.Translations, len(text), len(gz))
	return os.WriteFile(out, gz, 0o644)
}
