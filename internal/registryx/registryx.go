// Package registryx holds what package registry shares with toolshelf's own
// stages and nobody else: the bounds it puts on tools, the sentinel errors
// defer, execute and request match or wrap, the MCP annotation hints that
// permission rules and modes select tools by, and the self-built tool
// preparation a request session runs against a registry's bounds.
//
// Functions that need a registry's unexported state (PrepareSelfBuilt,
// HasHint, NameTaken, SnapshotAll) are installed by package registry when it is
// initialised; every caller imports registry for its types, so they are
// always set. They are generic over the registry's types so that this
// package does not import registry (which imports it).
package registryx

import (
	"errors"
	"iter"
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

// hooks are registry's functions, installed by its init.
var hooks struct {
	prepareSelfBuilt any // func(*registry.Registry, registry.Tool) (registry.Tool, error)
	hasHint          any // func(*registry.Tool, Hint) bool
	nameTaken        func(string) error
	snapshotAll      any // func(*registry.Snapshot) iter.Seq[*registry.Tool]
}

// SetHooks installs registry's functions; registry calls it from init.
func SetHooks[R, T, P, S any](prepareSelfBuilt func(R, T) (T, error), hasHint func(P, Hint) bool, nameTaken func(string) error, snapshotAll func(S) iter.Seq[P]) {
	hooks.prepareSelfBuilt, hooks.hasHint, hooks.nameTaken, hooks.snapshotAll = prepareSelfBuilt, hasHint, nameTaken, snapshotAll
}

// SnapshotAll returns the tools (*registry.Tool) of snapshot s (a
// *registry.Snapshot) in snapshot order without copying them: a request
// session walks it on every change notice, and an unchanged snapshot must
// cost no allocation. The tools are shared and must not be modified.
func SnapshotAll[P, S any](s S) iter.Seq[P] {
	return hooks.snapshotAll.(func(S) iter.Seq[P])(s)
}

// PrepareSelfBuilt validates a self-built tool t against registry r's
// bounds and returns it normalized, without registering it: a request
// session adds it to that session only.
func PrepareSelfBuilt[R, T any](r R, t T) (T, error) {
	return hooks.prepareSelfBuilt.(func(R, T) (T, error))(r, t)
}

// HasHint reports whether tool t (a *registry.Tool) carries hint h as a
// fact rules may rely on: a trusted tool's annotations read as the MCP
// specification reads them, an untrusted tool as the worst case.
func HasHint[P any](t P, h Hint) bool {
	return hooks.hasHint.(func(P, Hint) bool)(t, h)
}

// NameTaken is the one answer self-built registration gives for a name
// already in use, whoever holds it (a built-in, MCP or self-built tool, an
// entry tool, visible or hidden): it names neither the holder nor its
// group. It wraps registry.ErrDuplicateTool.
func NameTaken(name string) error { return hooks.nameTaken(name) }
