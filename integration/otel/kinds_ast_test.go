package otel

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"

	"github.com/toolshelf/toolshelf/execute"
)

// TestKindsAreConstants (issue 42): the observer tells event kinds apart by
// execute's EventKind constants, never by string literals, so that a
// renamed or retyped kind fails to compile here instead of silently
// matching nothing. Every string literal in otel.go that spells a known
// kind is reported.
func TestKindsAreConstants(t *testing.T) {
	kinds := map[string]bool{}
	for _, k := range []execute.EventKind{execute.EventDenied, execute.EventRejected, execute.EventBlocked, execute.EventUnloaded, execute.EventSearched} {
		kinds[string(k)] = true
	}
	f, err := parser.ParseFile(token.NewFileSet(), "otel.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	cases := 0
	ast.Inspect(f, func(n ast.Node) bool {
		c, ok := n.(*ast.CaseClause)
		if !ok {
			return true
		}
		for _, e := range c.List {
			cases++
			if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, _ := strconv.Unquote(lit.Value); kinds[s] {
					t.Errorf("otel.go: case %s: match execute's EventKind constant, not its string", lit.Value)
				}
			}
		}
		return true
	})
	if cases == 0 {
		t.Fatal("no case clause found in otel.go: the check looks at nothing")
	}
}
