package cedict_test

import (
	"fmt"

	"github.com/toolshelf/toolshelf/internal/engine/cedict"
)

func ExampleLookup() {
	tr, ok := cedict.Lookup("删除")
	fmt.Println(tr, ok)
	tr, ok = cedict.Lookup("北京") // a place: a word, with no translation
	fmt.Println(tr, ok)
	// Output:
	// [delete cancel] true
	// [] true
}
