package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"
)

// maxFuncLines bounds a function's length, declaration line to closing
// brace: functions of a screen or two (issue 24).
const maxFuncLines = 100

// TestFunctionLength fails when a function or method outside tests and
// generated code, in either module (examples and commands included), runs
// over maxFuncLines lines: nine did, up to 166, before the cut.
func TestFunctionLength(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	seen := 0
	err := walkGo(root, nil, false, parser.ParseComments, func(p string, fset *token.FileSet, f *ast.File) error {
		if ast.IsGenerated(f) {
			return nil
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			seen++
			n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
			if n > maxFuncLines {
				rel, _ := filepath.Rel(root, p)
				t.Errorf("%s: %s is %d lines (at most %d): split it", rel, fd.Name.Name, n, maxFuncLines)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 1000 {
		t.Fatalf("read %d functions: the walk missed the tree", seen)
	}
}
