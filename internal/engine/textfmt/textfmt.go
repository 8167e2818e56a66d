// Package textfmt holds the number formatting the CLI, the examples and
// budget's reports share.
package textfmt

import "strconv"

// Thousands formats n with comma thousands separators: 41147 → "41,147".
func Thousands(n int) string {
	s := strconv.Itoa(n)
	neg := false
	if n < 0 {
		neg, s = true, s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3+1)
	if neg {
		out = append(out, '-')
	}
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
