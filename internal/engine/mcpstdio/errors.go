package mcpstdio

import (
	"errors"

	"github.com/toolshelf/toolshelf/mcpconfig"
)

// Errors returned by [List] and [SplitCommand]. Each failure wraps exactly
// one of them, with the command and the stage that failed in the message.
var (
	// ErrCommand reports a command line that cannot be split or is empty.
	ErrCommand = mcpconfig.ErrCommand
	// ErrStart reports a command that could not be started (not found, not
	// executable).
	ErrStart = errors.New("mcpstdio: cannot start the server")
	// ErrExited reports a server that exited, or closed its stdout, before
	// answering. The message quotes the tail of its stderr.
	ErrExited = errors.New("mcpstdio: the server exited early")
	// ErrTimeout reports a server that did not answer before the context's
	// deadline. It is wrapped together with context.DeadlineExceeded.
	ErrTimeout = errors.New("mcpstdio: timed out")
	// ErrProtocol reports output that is not the MCP JSON-RPC the package
	// expects: a line that is not JSON-RPC 2.0, a result of the wrong
	// shape, a response to a request never sent, too many pages.
	ErrProtocol = errors.New("mcpstdio: bad JSON-RPC from the server")
	// ErrRPC reports a JSON-RPC error response to one of our requests.
	ErrRPC = errors.New("mcpstdio: the server answered with an error")
)
