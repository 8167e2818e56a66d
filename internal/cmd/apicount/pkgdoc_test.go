package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// internalInDocs lists the package comments of public packages that name
// an internal/ path, which a user cannot open (issue 35).
func internalInDocs(root string) ([]string, error) {
	var found []string
	err := walkGo(root, []string{"examples", "cmd"}, false, parser.PackageClauseOnly|parser.ParseComments, func(path string, _ *token.FileSet, f *ast.File) error {
		rel, _ := filepath.Rel(root, path)
		dir := filepath.ToSlash(filepath.Dir(rel))
		if f.Doc == nil || f.Name.Name == "main" || isInternal(dir) {
			return nil
		}
		for _, line := range strings.Split(f.Doc.Text(), "\n") {
			if strings.Contains(line, "internal/") {
				found = append(found, fmt.Sprintf("%s: %s", filepath.ToSlash(rel), strings.TrimSpace(line)))
			}
		}
		return nil
	})
	sort.Strings(found)
	return found, err
}

// TestPackageDocsPublicOnly: a public package's doc speaks of public API
// only; an internal/ path names something `go doc` cannot show the user.
func TestPackageDocsPublicOnly(t *testing.T) {
	found, err := internalInDocs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s: package docs name public API only", f)
	}
}
