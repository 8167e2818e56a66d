// Command gen writes internal/engine/filekind/data/extensions.txt from
// Debian's /etc/mime.types (package media-types) and the npm package
// linguist-languages 9.5.0:
//
//	npm pack linguist-languages@9.5.0 && tar xzf linguist-languages-9.5.0.tgz
//	go run ./internal/engine/filekind/internal/gen -linguist package
//
// It is a build-time tool; the library never reads either source at run
// time.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/toolshelf/toolshelf/internal/engine/filekind/internal/build"
)

func main() {
	mime := flag.String("mime", "/etc/mime.types", "mime.types file")
	ling := flag.String("linguist", "", "directory of the unpacked npm package linguist-languages")
	out := flag.String("out", "internal/engine/filekind/data/extensions.txt", "file to write")
	flag.Parse()
	text, err := build.Build(*mime, *ling)
	if err == nil {
		err = os.WriteFile(*out, text, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
