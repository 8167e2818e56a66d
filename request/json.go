package request

import (
	"unsafe"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
)

// appendBytesString appends b as a JSON string without copying it to a
// string first.
func appendBytesString(dst, b []byte) []byte {
	if len(b) == 0 {
		return append(dst, `""`...)
	}
	return jsonx.AppendString(dst, unsafe.String(unsafe.SliceData(b), len(b)))
}
