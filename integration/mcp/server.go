package mcp

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolshelf/toolshelf/registry"
)

// Errors returned by the [Manager]. They are Go errors for the harness; the
// model never sees them (a tool call on a lost server answers a model-facing
// result instead).
var (
	// ErrConfig reports an invalid [Server].
	ErrConfig = errors.New("mcp: invalid server config")
	// ErrDuplicateServer reports a second server with a name already managed.
	ErrDuplicateServer = errors.New("mcp: duplicate server")
	// ErrUnknownServer reports a name the Manager does not manage.
	ErrUnknownServer = errors.New("mcp: unknown server")
	// ErrUnavailable reports a server that is not connected.
	ErrUnavailable = errors.New("mcp: server unavailable")
	// ErrClosed reports a call on a closed Manager.
	ErrClosed = errors.New("mcp: manager closed")
)

// Server describes one MCP server. Exactly one of Command, URL and Transport
// is set.
type Server struct {
	// Name names the server's registry group; its tools are exposed as
	// mcp__<Name>__<tool>. It follows the tool-name alphabet, may not
	// contain "__" and may not start or end with "_".
	Name string
	// Description, when set, describes the group in the tool_search index.
	// Empty takes the server's initialize instructions, else its
	// serverInfo description, title or name.
	Description string
	// Command is the argv of a stdio server ("npx", "-y", "pkg", ...).
	Command []string
	// Env is added to the current environment of a stdio server.
	Env []string
	// Dir is the working directory of a stdio server; empty is the current one.
	Dir string
	// Stderr receives the whole of a stdio server's standard error; nil
	// keeps only its tail, which a failed attempt's [StartError] quotes.
	Stderr io.Writer
	// URL is the endpoint of a streamable HTTP server.
	URL string
	// HTTPClient is used for URL; nil is http.DefaultClient.
	HTTPClient *http.Client
	// Transport returns a fresh transport for each connection attempt, for
	// transports other than the two above (tests use in-memory ones).
	Transport func() sdk.Transport
	// Group carries the group's deferral settings (DefaultDefer, Configs,
	// AlwaysLoad, Tier). Its Name, Description and Source are ignored.
	Group registry.Group
}

func (s *Server) check() error {
	// The registry's own rule for a server's group name (and the names it
	// keeps for itself), asked of an empty registry.
	if err := registry.New(nil).AddGroup(registry.Group{Name: s.Name, Source: registry.SourceMCP}); err != nil {
		return fmt.Errorf("%w: server name %q: %w", ErrConfig, s.Name, err)
	}
	n := 0
	if len(s.Command) > 0 {
		n++
	}
	if s.URL != "" {
		n++
	}
	if s.Transport != nil {
		n++
	}
	if n != 1 {
		return fmt.Errorf("%w: server %q: set exactly one of Command, URL and Transport (got %d)", ErrConfig, s.Name, n)
	}
	if len(s.Command) > 0 && s.Command[0] == "" {
		return fmt.Errorf("%w: server %q: empty command", ErrConfig, s.Name)
	}
	return nil
}

// transport returns a fresh transport for one connection attempt, and for
// a stdio server its process, which explains a failed attempt.
func (s *Server) transport() (sdk.Transport, *stdioProcess) {
	switch {
	case s.Transport != nil:
		return s.Transport(), nil
	case s.URL != "":
		return &sdk.StreamableClientTransport{Endpoint: s.URL, HTTPClient: s.HTTPClient}, nil
	}
	p := newStdioProcess(s)
	return p, p
}
