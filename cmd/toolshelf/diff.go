package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/toolshelf/toolshelf/internal/engine/wire"
)

// diffJSON is diff's --json output.
type diffJSON struct {
	Equal  bool   `json:"equal"`
	Offset *int   `json:"offset"`
	Path   string `json:"path"`
	A      string `json:"a"`
	B      string `json:"b"`
	LenA   int    `json:"len_a"`
	LenB   int    `json:"len_b"`
}

// runDiff reports the first byte where two request bodies differ and the
// JSON path of the section holding it. Exit 1 when they differ.
func runDiff(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "write JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return parseFailed(fs, err, stdout, stderr)
	}
	if len(pos) != 2 {
		return fail(stderr, "toolshelf diff: want two files, got %d (usage: toolshelf diff A.json B.json)", len(pos))
	}
	var bodies [2][]byte
	for i, p := range pos {
		b, err := os.ReadFile(p)
		if err != nil {
			return fail(stderr, "toolshelf diff: %v", err)
		}
		bodies[i] = b
	}
	d := wire.Diff(bodies[0], bodies[1])
	var out bytes.Buffer
	if *asJSON {
		j := diffJSON{Equal: d == nil, LenA: len(bodies[0]), LenB: len(bodies[1])}
		if d != nil {
			j.Offset, j.Path, j.A, j.B = &d.Offset, d.Path, d.A, d.B
		}
		if err := writeJSON(&out, j); err != nil {
			return fail(stderr, "toolshelf diff: %v", err)
		}
	} else if d == nil {
		fmt.Fprintf(&out, "identical: %d bytes\n", len(bodies[0]))
	} else {
		fmt.Fprintf(&out, "%s: %d bytes, %s: %d bytes\n%s\n", pos[0], len(bodies[0]), pos[1], len(bodies[1]), d)
	}
	stdout.Write(out.Bytes())
	if d != nil {
		return exitFinding
	}
	return exitOK
}
