package request

import (
	"fmt"
	"strings"
)

// wrappedErr is an error whose message is fixed at construction and which
// unwraps to every error it was built from.
type wrappedErr struct {
	msg  string
	errs []error
}

func (w *wrappedErr) Error() string   { return w.msg }
func (w *wrappedErr) Unwrap() []error { return w.errs }

// wrapErr returns an error matching outer and inner with errors.Is, reading
// "outer: inner: detail" with inner's leading "pkg: " removed when outer
// starts with the same one: ErrConfig wrapping ErrUnknownProvider reads
// "request: invalid session config: unknown provider", not
// "request: invalid session config: request: unknown provider". detail is
// formatted as by fmt.Sprintf and left out when empty.
func wrapErr(outer, inner error, format string, args ...any) error {
	msg := outer.Error() + ": " + trimSharedPrefix(outer.Error(), inner.Error())
	if format != "" {
		msg += ": " + fmt.Sprintf(format, args...)
	}
	return &wrappedErr{msg: msg, errs: []error{outer, inner}}
}

// trimSharedPrefix removes from inner the "pkg: " prefix outer starts with.
func trimSharedPrefix(outer, inner string) string {
	i := strings.Index(outer, ": ")
	if i <= 0 {
		return inner
	}
	if rest, ok := strings.CutPrefix(inner, outer[:i+2]); ok {
		return rest
	}
	return inner
}
