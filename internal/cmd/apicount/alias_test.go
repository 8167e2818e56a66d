package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// aliasAllowed lists the aliases of internal types still exported, each with
// the reason; an entry goes when its alias does (issue 35 removes them all).
var aliasAllowed = map[string]string{}

// TestNoAliasOfInternal fails when a public package exports a type alias of
// a type from an internal package (issue 35): `type Hit = toolsearch.Hit`
// hides the seam instead of removing it — go doc shows no fields, and the
// public package cannot document what it exports. A public package defines
// its types itself, and the internal package imports it.
func TestNoAliasOfInternal(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	var bad []string
	seen := 0
	err := walkGo(root, nil, false, 0, func(p string, _ *token.FileSet, f *ast.File) error {
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		rel = filepath.ToSlash(rel)
		if isInternal(rel) || f.Name.Name == "main" {
			return nil
		}
		seen++
		for _, a := range internalAliases(f) {
			if _, ok := aliasAllowed[rel+"."+a]; !ok {
				bad = append(bad, rel+"."+a)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 20 {
		t.Fatalf("scanned %d files of public packages: the walk is broken", seen)
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("%s is an alias of an internal type: define the type in the public package and import it from internal/", b)
	}
}

// TestInternalAliasesSees keeps TestNoAliasOfInternal honest: the detector
// flags an exported alias of an internal type (also an instantiated or
// pointer one) and leaves unexported aliases, aliases of public types and
// defined types alone.
func TestInternalAliasesSees(t *testing.T) {
	src := `package search

import (
	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
	ts "github.com/toolshelf/toolshelf/internal/other"
	"github.com/toolshelf/toolshelf/registry"
)

type Hit = toolsearch.Hit
type (
	Fit = *ts.Fit
	List = []toolsearch.Hit
	hidden = toolsearch.Index
	Tool = registry.Tool
	Own toolsearch.Hit
)
`
	f, err := parser.ParseFile(token.NewFileSet(), "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(internalAliases(f), ",")
	if want := "Hit,Fit,List"; got != want {
		t.Fatalf("internalAliases = %q, want %q", got, want)
	}
}

// internalAliases returns the exported type aliases of f whose right-hand
// side names a type of an internal package.
func internalAliases(f *ast.File) []string {
	internal := map[string]bool{} // local names of imported internal packages
	for _, im := range f.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		if !isInternal(path) {
			continue
		}
		local := path[strings.LastIndex(path, "/")+1:]
		if im.Name != nil {
			local = im.Name.Name
		}
		internal[local] = true
	}
	var out []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.TYPE {
			continue
		}
		for _, s := range g.Specs {
			ts := s.(*ast.TypeSpec)
			if !ts.Assign.IsValid() || !ts.Name.IsExported() {
				continue
			}
			found := false
			ast.Inspect(ts.Type, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && internal[id.Name] {
						found = true
					}
				}
				return !found
			})
			if found {
				out = append(out, ts.Name.Name)
			}
		}
	}
	return out
}
