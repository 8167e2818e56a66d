package main

import (
	"os"
	"os/exec"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioTransport is the transport integration/mcp's Manager builds for a
// Server's Command: the go-sdk's CommandTransport over the process's stdin
// and stdout, in the current environment, its stderr discarded.
func stdioTransport(argv []string) sdk.Transport {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = os.Environ()
	return &sdk.CommandTransport{Command: cmd}
}
