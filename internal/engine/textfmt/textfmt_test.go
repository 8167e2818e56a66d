package textfmt

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestThousands(t *testing.T) {
	for in, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 41147: "41,147", 1234567: "1,234,567", -1500: "-1,500"} {
		assert.Equal(t, want, Thousands(in), fmt.Sprint(in))
	}
}
