package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSentinelPrefix checks the one error-prefix convention: every exported
// sentinel error of a public package (var ErrX = errors.New("...")) has a
// message that starts with its package's directory name, so a wrapped
// message reads "registry: unknown tool \"x\"" whichever package made it.
func TestSentinelPrefix(t *testing.T) {
	root := filepath.Join("..", "..")
	seen := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			n := d.Name()
			if p != root && (n == "internal" || n == "testdata" || n == "examples" || n == "cmd" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		want := filepath.Base(filepath.Dir(p)) + ": "
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, s := range g.Specs {
				v := s.(*ast.ValueSpec)
				for i, name := range v.Names {
					if !strings.HasPrefix(name.Name, "Err") || i >= len(v.Values) {
						continue
					}
					call, ok := v.Values[i].(*ast.CallExpr)
					if !ok || len(call.Args) != 1 {
						continue
					}
					sel, ok := call.Fun.(*ast.SelectorExpr)
					lit, isLit := call.Args[0].(*ast.BasicLit)
					if !ok || sel.Sel.Name != "New" || !isLit {
						continue
					}
					msg, _ := strconv.Unquote(lit.Value)
					seen++
					if !strings.HasPrefix(msg, want) {
						t.Errorf("%s: %s = %q: want the prefix %q", p, name.Name, msg, want)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 20 {
		t.Fatalf("found %d sentinels; the walk missed the packages", seen)
	}
}

// TestPrefixOnce: fmt.Errorf("%w: %w", ErrConfig, ErrUnknownProvider) reads
// "request: invalid session config: request: unknown provider". A call that
// wraps two sentinels of its own package must use internal/errs.Wrap, which
// keeps the prefix once.
func TestPrefixOnce(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	byDir := map[string][]*ast.File{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			n := d.Name()
			if p != root && (n == "testdata" || n == "node_modules" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		byDir[filepath.Dir(p)] = append(byDir[filepath.Dir(p)], f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, files := range byDir {
		sentinels := map[string]bool{}
		for _, f := range files {
			for _, decl := range f.Decls {
				if g, ok := decl.(*ast.GenDecl); ok && g.Tok == token.VAR {
					for _, s := range g.Specs {
						for _, n := range s.(*ast.ValueSpec).Names {
							if strings.HasPrefix(n.Name, "Err") || strings.HasPrefix(n.Name, "err") {
								sentinels[n.Name] = true
							}
						}
					}
				}
			}
		}
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "Errorf" {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "fmt" {
					return true
				}
				calls++
				own := 0
				for _, a := range call.Args[1:] {
					if id, ok := a.(*ast.Ident); ok && sentinels[id.Name] {
						own++
					}
				}
				if own >= 2 {
					t.Errorf("%s: fmt.Errorf wraps %d sentinels of its own package, repeating its prefix: use internal/errs.Wrap", fset.Position(call.Pos()), own)
				}
				return true
			})
		}
	}
	if calls < 20 {
		t.Fatalf("found %d fmt.Errorf calls; the walk missed the packages", calls)
	}
}
