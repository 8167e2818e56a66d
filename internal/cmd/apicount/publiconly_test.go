package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// coreInternal is the import path prefix of the core module's internal
// packages, which code outside the core cannot rely on.
const coreInternal = "github.com/toolshelf/toolshelf/internal/"

// internalImports lists the core internal/ packages the non-test Go files
// under dir import, as "file: path" lines.
func internalImports(root, dir string) ([]string, error) {
	var found []string
	err := walkGo(filepath.Join(root, dir), nil, false, parser.ImportsOnly, func(path string, _ *token.FileSet, f *ast.File) error {
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if strings.HasPrefix(p, coreInternal) {
				rel, _ := filepath.Rel(root, path)
				found = append(found, fmt.Sprintf("%s: %s", filepath.ToSlash(rel), p))
			}
		}
		return nil
	})
	sort.Strings(found)
	return found, err
}

// TestExamplesPublicOnly: a user copies an example into their own module,
// where the core's internal/ packages cannot be imported (issue 35). What
// an example needed from them was a gap in the public API.
func TestExamplesPublicOnly(t *testing.T) {
	found, err := internalImports(filepath.Join("..", "..", ".."), "examples")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s: examples use public API only", f)
	}
}

// TestIntegrationPublicOnly: the integration module's non-test code —
// libraries and commands (toolshelf-mcp, toolshelf-gateway) — uses the
// core's public API only (issues 35 and 46), so that internal/ is not an API
// between two modules that then could only be released together. There is
// no exception: toolshelf-mcp reaches stdio servers through integration/mcp
// as the gateway does.
func TestIntegrationPublicOnly(t *testing.T) {
	found, err := internalImports(filepath.Join("..", "..", ".."), "integration")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s: the integration module uses the core's public API only", f)
	}
}
