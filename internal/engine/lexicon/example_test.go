package lexicon_test

import (
	"fmt"

	"github.com/toolshelf/toolshelf/internal/engine/lexicon"
)

func ExampleRelated() {
	for _, r := range lexicon.Related("notify") {
		fmt.Println(r.Word, r.Kind, r.Rank)
	}
	// Output:
	// notice derivation 1
	// notification derivation 1
	// advise synonym 1
	// apprise synonym 1
	// apprize synonym 1
	// inform gloss 1
}
