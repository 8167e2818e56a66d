package registry

import (
	"errors"

	"github.com/toolshelf/toolshelf/internal/engine/registryx"
)

// Sentinel errors a harness matches with [errors.Is]. Every error returned
// by this package wraps a sentinel, so the message names the tool, group or
// file at fault; the other sentinels (invalid name, schema or catalog, a
// tool over its bounds, a reserved or unknown name) are the library's own
// and the message is what a harness shows.
var (
	// ErrDuplicateTool reports two tools with the same exposed name
	// ([Registry.Register], [Registry.Import]): the harness renames one
	// or leaves it out.
	ErrDuplicateTool = errors.New("registry: duplicate tool")
	// ErrDuplicateGroup reports a group added twice ([Registry.AddGroup]):
	// a harness that adds a server's group when it first sees the server
	// takes it as "already there".
	ErrDuplicateGroup = errors.New("registry: duplicate group")
	// ErrNoServer reports an MCP tools/list imported without the name of
	// the server it came from (see [Catalog.Server]): the harness asks for
	// the server's name and imports again.
	ErrNoServer = errors.New("registry: catalog names no server")
	// ErrRejected reports an import ([Registry.Import]) that left out
	// tools whose definition is unusable (a schema that does not resolve,
	// a bad name, a clash) and registered the rest: the message names
	// the tools left out, [Registry.Rejected] lists them.
	ErrRejected = errors.New("registry: tools rejected")
)

// The library's own sentinels: those other stages match live in
// internal/engine/registryx.
var (
	errInvalidName   = registryx.ErrInvalidName
	errInvalidSchema = registryx.ErrInvalidSchema
	errTooLarge      = registryx.ErrTooLarge

	// errUnknownTool reports a name that is not registered.
	errUnknownTool = errors.New("registry: unknown tool")
	// errUnknownGroup reports a group that was never added.
	errUnknownGroup = errors.New("registry: unknown group")
	// errReservedName reports a name the library keeps for itself.
	errReservedName = errors.New("registry: reserved name")
	// errCatalog reports catalog JSON that cannot be imported.
	errCatalog = errors.New("registry: invalid catalog")
)
