package execute_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEventKindsDocumented: every exported EventKind constant is listed,
// with its word, in EventKind's doc, and the doc lists no word that is not
// a constant; no kind is unexported (a harness compares with the constant,
// so a misspelt kind does not compile).
func TestEventKindsDocumented(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "event.go", nil, parser.ParseComments)
	require.NoError(t, err)
	var doc string
	var words []string
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, sp := range gd.Specs {
			switch sp := sp.(type) {
			case *ast.TypeSpec:
				if sp.Name.Name == "EventKind" {
					doc = gd.Doc.Text()
				}
			case *ast.ValueSpec:
				if id, ok := sp.Type.(*ast.Ident); !ok || id.Name != "EventKind" {
					continue
				}
				for i, n := range sp.Names {
					assert.True(t, n.IsExported(), "%s: event kinds are exported constants", n.Name)
					w, err := strconv.Unquote(sp.Values[i].(*ast.BasicLit).Value)
					require.NoError(t, err)
					words = append(words, w)
				}
			}
		}
	}
	require.Len(t, words, 25) // 24 and cache_miss (issue 45)
	var listed []string
	for _, m := range regexp.MustCompile(`(?m)^  - "([a-z_]+)":`).FindAllStringSubmatch(doc, -1) {
		listed = append(listed, m[1])
	}
	slices.Sort(words)
	slices.Sort(listed)
	assert.Equal(t, words, listed)
}
