package stem_test

import (
	"fmt"

	"github.com/toolshelf/toolshelf/internal/engine/stem"
)

func ExampleStem() {
	for _, w := range []string{"deleted", "deleting", "deletion", "notifications", "notify", "logged", "logs", "login", "skies", "news"} {
		fmt.Println(w, stem.Stem(w))
	}
	// Output:
	// deleted delet
	// deleting delet
	// deletion delet
	// notifications notif
	// notify notifi
	// logged log
	// logs log
	// login login
	// skies sky
	// news news
}
