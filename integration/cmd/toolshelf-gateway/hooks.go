package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/toolshelf/toolshelf/execute"
)

// hookTimeout bounds one run of a hook command.
const hookTimeout = 30 * time.Second

// parseHook parses the rest of a "Hook(pattern) command args..." line: the
// command runs before each call of a tool the pattern selects (after
// validation and permission), with the call as JSON on its standard input
// ({"session", "tool", "via", "params"}). Exit status 0 lets the call run;
// any other blocks it, with the command's standard error (else its
// standard output) as the reason the model reads — a hook that cannot run
// blocks too: hooks fail closed. The command line is split at white space,
// with no shell and no quoting.
func parseHook(pattern, command string) (execute.Hook, error) {
	argv := strings.Fields(command)
	if len(argv) == 0 {
		return execute.Hook{}, errors.New("Hook(pattern) needs a command after it")
	}
	return execute.Hook{
		Name:    "command " + argv[0],
		Pattern: pattern,
		Before: func(ctx context.Context, c *execute.Call) execute.Verdict {
			return runHook(ctx, argv, c)
		},
	}, nil
}

func runHook(ctx context.Context, argv []string, c *execute.Call) execute.Verdict {
	in, err := json.Marshal(struct {
		Session string          `json:"session"`
		Tool    string          `json:"tool"`
		Via     string          `json:"via,omitempty"`
		Params  json.RawMessage `json:"params"`
	}{c.Session, c.Name, c.Via, c.Params})
	if err != nil {
		return execute.Verdict{Block: true, Reason: "the gateway's hook could not encode the call: " + err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, hookTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin = bytes.NewReader(in)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	if err == nil {
		return execute.Verdict{}
	}
	reason := strings.TrimSpace(errOut.String())
	if reason == "" {
		reason = strings.TrimSpace(out.String())
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || reason == "" {
		reason = fmt.Sprintf("the gateway's hook %s did not allow the call (%v)", argv[0], err)
	}
	return execute.Verdict{Block: true, Reason: clip(reason, 2000)}
}
