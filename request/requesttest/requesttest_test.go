package requesttest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/request"
)

// fakeT records failures instead of failing the test.
type fakeT struct {
	testing.TB
	errs []string
}

func (f *fakeT) Helper()                        {}
func (f *fakeT) Errorf(format string, a ...any) { f.errs = append(f.errs, fmt.Sprintf(format, a...)) }

func TestAssertStablePrefix(t *testing.T) {
	a := []byte(`{"model":"m","tools":[{"name":"x","description":"d"}],"messages":[{"role":"user","content":"1"}]}`)
	b := []byte(`{"model":"m","tools":[{"name":"x","description":"d"}],"messages":[{"role":"user","content":"1"},{"role":"assistant","content":"2"}]}`)
	c := []byte(`{"model":"m","tools":[{"name":"x","description":"D"}],"messages":[{"role":"user","content":"1"}]}`)
	ft := &fakeT{TB: t}
	assert.True(t, AssertStablePrefix(ft, a, b))
	assert.Empty(t, ft.errs)
	assert.False(t, AssertStablePrefix(ft, a, b, c))
	require.Len(t, ft.errs, 1)
	assert.Contains(t, ft.errs[0], "body 2")
	assert.Contains(t, ft.errs[0], "tools[0].description")
}

// TestKitTakesRequestProvider (issue 35): the kit's functions take a
// request.Provider, have no type parameter, and name no provider in a
// string literal: the names live in one place.
func TestKitTakesRequestProvider(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				assert.Nil(t, n.Type.TypeParams, "%s: %s has a type parameter", name, n.Name)
			case *ast.BasicLit:
				if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING {
					for _, p := range []request.Provider{request.OpenAIChat, request.OpenAIResponses, request.Anthropic, request.Gemini} {
						assert.NotEqual(t, string(p), s, "%s: a provider's name as a string literal", fset.Position(n.Pos()))
					}
				}
			}
			return true
		})
	}
	assert.Equal(t, 2, checked, "the kit's files were read")
}
