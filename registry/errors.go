package registry

import "errors"

// Sentinel errors. Every error returned by this package wraps one of them, so
// callers can match with [errors.Is] while the message names the tool, group
// or file at fault.
var (
	// ErrInvalidName reports a tool or group name outside the allowed alphabet or length.
	ErrInvalidName = errors.New("registry: invalid name")
	// ErrDuplicateTool reports two tools with the same exposed name.
	ErrDuplicateTool = errors.New("registry: duplicate tool")
	// ErrUnknownTool reports a name that is not registered.
	ErrUnknownTool = errors.New("registry: unknown tool")
	// ErrUnknownGroup reports a group that was never added.
	ErrUnknownGroup = errors.New("registry: unknown group")
	// ErrDuplicateGroup reports a group added twice.
	ErrDuplicateGroup = errors.New("registry: duplicate group")
	// ErrInvalidSchema reports an input schema that is not a JSON object schema.
	ErrInvalidSchema = errors.New("registry: invalid input schema")
	// ErrTooLarge reports a self-built tool over its size bound.
	ErrTooLarge = errors.New("registry: too large")
	// ErrReservedName reports a name the library keeps for itself.
	ErrReservedName = errors.New("registry: reserved name")
	// ErrCatalog reports catalog JSON that cannot be imported.
	ErrCatalog = errors.New("registry: invalid catalog")
	// ErrNoServer reports an MCP tools/list imported without the name of
	// the server it came from (see [Catalog.Server]).
	ErrNoServer = errors.New("registry: catalog names no server")
)
