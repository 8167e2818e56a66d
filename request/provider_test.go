package request

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProviderSwitchInOnePlace keeps the provider branching in provider.go:
// no other file of the package compares a value with a provider constant
// or switches on one. A new provider is a new encoder, not seven edits.
func TestProviderSwitchInOnePlace(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	isProvider := func(e ast.Expr) bool {
		id, ok := e.(*ast.Ident)
		return ok && (id.Name == "OpenAIChat" || id.Name == "OpenAIResponses" || id.Name == "Anthropic")
	}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "provider.go" {
			continue
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		checked++
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if (n.Op == token.EQL || n.Op == token.NEQ) && (isProvider(n.X) || isProvider(n.Y)) {
					t.Errorf("%s: compares with a provider; move the branch into an encoder (provider.go)", fset.Position(n.Pos()))
				}
			case *ast.CaseClause:
				for _, e := range n.List {
					if isProvider(e) {
						t.Errorf("%s: switches on a provider; move the branch into an encoder (provider.go)", fset.Position(n.Pos()))
					}
				}
			}
			return true
		})
	}
	assert.Greater(t, checked, 5, "the package's files were read")
}

// TestEncoderForEveryProvider: each provider constant has its encoder, and
// nothing else does.
func TestEncoderForEveryProvider(t *testing.T) {
	for _, p := range providers {
		enc, ok := encoderFor(p)
		assert.True(t, ok, p)
		assert.NotNil(t, enc, p)
	}
	for _, p := range []Provider{"", "openai", "Anthropic", "vertex"} {
		_, ok := encoderFor(p)
		assert.False(t, ok, p)
	}
}
