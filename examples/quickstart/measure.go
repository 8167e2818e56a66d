package main

import "strconv"

// sharedPrefix is the number of leading bytes a and b have in common: what
// a provider's prefix cache can reuse of the previous request.
func sharedPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// thousands writes n with a comma every three digits: 41,147.
func thousands(n int) string {
	s := strconv.Itoa(n)
	lead := len(s) % 3
	if n < 0 {
		return "-" + thousands(-n)
	}
	out := s[:lead]
	for i := lead; i < len(s); i += 3 {
		if out != "" {
			out += ","
		}
		out += s[i : i+3]
	}
	return out
}
