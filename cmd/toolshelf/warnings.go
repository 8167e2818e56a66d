package main

import (
	"fmt"
	"io"

	"github.com/toolshelf/toolshelf/registry"
)

// warningJSON is one registry.Warning in budget's --json output.
type warningJSON struct {
	Tool    string `json:"tool"`
	Path    string `json:"path"`
	Keyword string `json:"keyword,omitempty"`
	Reason  string `json:"reason"`
}

func warningsJSON(ws []registry.Warning) []warningJSON {
	var out []warningJSON
	for _, w := range ws {
		out = append(out, warningJSON{Tool: w.Tool, Path: w.Path, Keyword: w.Keyword, Reason: w.Reason})
	}
	return out
}

// writeWarnings lists the schema warnings, after a count line.
func writeWarnings(w io.Writer, ws []warningJSON) {
	if len(ws) == 0 {
		return
	}
	tools := map[string]bool{}
	for _, x := range ws {
		tools[x.Tool] = true
	}
	fmt.Fprintf(w, "schema warnings           %d in %d tools: left out of validation, sent as written\n", len(ws), len(tools))
	for _, x := range ws {
		fmt.Fprintf(w, "  %s\n", registry.Warning{Tool: x.Tool, Path: x.Path, Keyword: x.Keyword, Reason: x.Reason})
	}
}
