package main

import (
	"fmt"
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// initHooks finds, in the non-test Go files under root, the seams issue 34
// removed: a package-level variable of another toolshelf package assigned
// (dispatch.Of = ..., sessionview.Frozen = ...), and an init function that
// calls into another toolshelf package (registryx.SetHooks(...),
// countercache.Register(...)) to install its functions there. Either makes
// a package's behaviour depend on who imported whom, typed any.
func initHooks(root string) ([]string, error) {
	var found []string
	err := walkGo(root, nil, false, 0, func(path string, fset *token.FileSet, f *ast.File) error {
		imported := map[string]bool{}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if !strings.HasPrefix(p, "github.com/toolshelf/toolshelf") {
				continue
			}
			name := p[strings.LastIndex(p, "/")+1:]
			if im.Name != nil {
				name = im.Name.Name
			}
			imported[name] = true
		}
		other := func(e ast.Expr) (string, bool) {
			sel, ok := e.(*ast.SelectorExpr)
			if !ok {
				return "", false
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok || !imported[id.Name] {
				return "", false
			}
			return id.Name + "." + sel.Sel.Name, true
		}
		rel, _ := filepath.Rel(root, path)
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			isInit := fd.Recv == nil && fd.Name.Name == "init"
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.AssignStmt:
					for _, l := range n.Lhs {
						if name, ok := other(l); ok {
							found = append(found, fmt.Sprintf("%s:%d: assigns %s, a variable of another package", filepath.ToSlash(rel), fset.Position(n.Pos()).Line, name))
						}
					}
				case *ast.CallExpr:
					if name, ok := other(n.Fun); ok && isInit {
						found = append(found, fmt.Sprintf("%s:%d: init calls %s, installing functions in another package", filepath.ToSlash(rel), fset.Position(n.Pos()).Line, name))
					}
				}
				return true
			})
		}
		return nil
	})
	sort.Strings(found)
	return found, err
}

// TestNoInitHooks: no package hands its functions to another through a
// package-level variable or an init-time registration (issue 34); the
// packages talk through plain exported API or plain code.
func TestNoInitHooks(t *testing.T) {
	found, err := initHooks(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Error(f)
	}
}

// TestInitHooksSees keeps TestNoInitHooks honest on a synthetic tree with
// the two seams it looks for (as internal/dispatch.Of and
// internal/countercache.Register were) and a plain package beside them.
func TestInitHooksSees(t *testing.T) {
	root := t.TempDir()
	write := func(rel, src string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("internal/hook/hook.go", "package hook\n\nvar Of func(any) any\n\nfunc Register(f func()) {}\n")
	write("a/a.go", "package a\n\nimport \"github.com/toolshelf/toolshelf/internal/hook\"\n\nfunc init() { hook.Of = func(x any) any { return x } }\n")
	write("b/b.go", "package b\n\nimport h \"github.com/toolshelf/toolshelf/internal/hook\"\n\nfunc init() {\n\th.Register(func() {})\n}\n")
	write("c/c.go", "package c\n\nimport \"github.com/toolshelf/toolshelf/internal/hook\"\n\nvar x int\n\nfunc init() { x = 1 }\n\nfunc Run() { hook.Register(nil) }\n")
	found, err := initHooks(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"a/a.go:5: assigns hook.Of, a variable of another package",
		"b/b.go:6: init calls h.Register, installing functions in another package",
	}
	if strings.Join(found, "\n") != strings.Join(want, "\n") {
		t.Fatalf("found:\n%s\nwant:\n%s", strings.Join(found, "\n"), strings.Join(want, "\n"))
	}
}
