// Package errs builds the library's wrapped errors so that each message
// carries its package's prefix once. A sentinel such as request.ErrConfig
// ("request: invalid session config") wrapping another of the same package
// (request.ErrUnknownProvider, "request: unknown provider") would read
// "request: invalid session config: request: unknown provider" through
// fmt.Errorf; [Wrap] drops the repeated prefix while both stay matchable
// with errors.Is. Used by every public package that wraps one of its own
// sentinels in another.
package errs

import (
	"fmt"
	"strings"
)

// wrapped is an error whose message is fixed at construction and which
// unwraps to every error it was built from.
type wrapped struct {
	msg  string
	errs []error
}

func (w *wrapped) Error() string   { return w.msg }
func (w *wrapped) Unwrap() []error { return w.errs }

// Wrap returns an error matching outer and inner with errors.Is, reading
// "outer: inner: detail" with inner's leading "pkg: " removed when outer
// starts with the same one. detail is formatted as by fmt.Sprintf and left
// out when empty.
func Wrap(outer, inner error, format string, args ...any) error {
	msg := outer.Error() + ": " + trimShared(outer.Error(), inner.Error())
	if format != "" {
		msg += ": " + fmt.Sprintf(format, args...)
	}
	return &wrapped{msg: msg, errs: []error{outer, inner}}
}

// trimShared removes from inner the "pkg: " prefix outer starts with.
func trimShared(outer, inner string) string {
	i := strings.Index(outer, ": ")
	if i <= 0 {
		return inner
	}
	if rest, ok := strings.CutPrefix(inner, outer[:i+2]); ok {
		return rest
	}
	return inner
}
