package main

import (
	"go/ast"
	"go/token"
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
	root := filepath.Join("..", "..", "..")
	seen := 0
	err := walkGo(root, []string{"internal", "examples", "cmd"}, false, 0, func(p string, _ *token.FileSet, f *ast.File) error {
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
// wraps two sentinels of its own package must use a wrapper such as request's wrapErr, which
// keeps the prefix once.
func TestPrefixOnce(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	type located struct {
		fset *token.FileSet
		f    *ast.File
	}
	byDir := map[string][]located{}
	err := walkGo(root, nil, false, 0, func(p string, fset *token.FileSet, f *ast.File) error {
		byDir[filepath.Dir(p)] = append(byDir[filepath.Dir(p)], located{fset, f})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, files := range byDir {
		sentinels := map[string]bool{}
		for _, l := range files {
			for _, n := range errVars(l.f) {
				sentinels[n] = true
			}
		}
		for _, l := range files {
			for _, call := range errorfCalls(l.f) {
				calls++
				own := 0
				for _, a := range call.Args[1:] {
					if id, ok := a.(*ast.Ident); ok && sentinels[id.Name] {
						own++
					}
				}
				if own >= 2 {
					t.Errorf("%s: fmt.Errorf wraps %d sentinels of its own package, repeating its prefix: wrap them as request's wrapErr does (one prefix, both matchable)", l.fset.Position(call.Pos()), own)
				}
			}
		}
	}
	if calls < 20 {
		t.Fatalf("found %d fmt.Errorf calls; the walk missed the packages", calls)
	}
}

// errVars returns the package-level variables of f named like errors.
func errVars(f *ast.File) []string {
	var out []string
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, s := range g.Specs {
			for _, n := range s.(*ast.ValueSpec).Names {
				if strings.HasPrefix(n.Name, "Err") || strings.HasPrefix(n.Name, "err") {
					out = append(out, n.Name)
				}
			}
		}
	}
	return out
}

// errorfCalls returns f's calls of fmt.Errorf.
func errorfCalls(f *ast.File) []*ast.CallExpr {
	var out []*ast.CallExpr
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Errorf" {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && x.Name == "fmt" {
			out = append(out, call)
		}
		return true
	})
	return out
}
