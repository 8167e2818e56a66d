package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
)

// walkGo parses every Go file under root and calls fn with it, skipping
// testdata, node_modules, hidden directories and any directory named in
// skip; test files only when tests is set.
func walkGo(root string, skip []string, tests bool, mode parser.Mode, fn func(path string, fset *token.FileSet, f *ast.File) error) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			n := d.Name()
			if p != root && (n == "testdata" || n == "node_modules" || strings.HasPrefix(n, ".") || contains(skip, n)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || (!tests && strings.HasSuffix(p, "_test.go")) {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, mode|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		return fn(p, fset, f)
	})
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// recvName returns the name of a method's receiver type, with pointers and
// type parameters taken off, and false for a function or an odd receiver.
func recvName(d *ast.FuncDecl) (string, bool) {
	if d.Recv == nil {
		return "", false
	}
	t := d.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	id, ok := t.(*ast.Ident)
	if !ok {
		return "", false
	}
	return id.Name, true
}
