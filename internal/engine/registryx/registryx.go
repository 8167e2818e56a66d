// Package registryx holds what package registry shares with toolshelf's own
// stages and nobody else: the bounds it puts on tools, the sentinel errors
// defer, execute and request match or wrap, the MCP annotation hints that
// permission rules and modes select tools by (read on a tool by
// internal/engine/visibility.HasHint), and the answer to a taken self-built name.
// It imports nothing of toolshelf's: package registry imports it.
package registryx

import (
	"errors"
	"fmt"
)

// Bounds on tools. A model writes self-built tools at run time, so their
// size is bounded tighter: past a bound registration fails with
// [ErrTooLarge] rather than cutting the text silently. registry.Options
// states them as its fields' defaults.
const (
	MaxSelfBuiltDescription = 4096  // runes
	MaxSelfBuiltSchema      = 16384 // bytes of compact JSON

	// Bounds on every tool, generous enough for real catalogs (the longest
	// description among the 293 real MCP tools in testdata is under 4,000
	// runes; the harness fixture's VideoGen is 18,443) while keeping a
	// hostile catalog from putting megabytes into every request.
	MaxDescription = 65536   // runes
	MaxSchema      = 1 << 20 // bytes of compact JSON
)

// Sentinel errors of package registry that its callers inside toolshelf
// match; registry's errors wrap them. A harness reads the message.
var (
	// ErrInvalidName reports a tool or group name outside the allowed alphabet or length.
	ErrInvalidName = errors.New("registry: invalid name")
	// ErrInvalidSchema reports an input schema that is not a JSON object schema.
	ErrInvalidSchema = errors.New("registry: invalid input schema")
	// ErrTooLarge reports a tool over its size bound.
	ErrTooLarge = errors.New("registry: too large")
	// ErrHint reports an annotation name that [ParseHint] does not know.
	ErrHint = errors.New("registry: unknown annotation")
)

// NameTaken is the one answer self-built registration gives for a name
// already in use, whoever holds it (a built-in, MCP or self-built tool, an
// entry tool, visible or hidden): it names neither the holder nor its
// group, so that a model probing names learns no more about tools it
// cannot see than that the name is taken. dup is
// registry.ErrDuplicateTool, which the error wraps (this package cannot
// import registry, which imports it).
func NameTaken(dup error, name string) error {
	return fmt.Errorf("%w: self-built tool %q: the name is taken; choose another name", dup, name)
}
