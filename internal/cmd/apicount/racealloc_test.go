package main

import (
	"go/ast"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestAllocationAssertionsSkipUnderRace: issue 43 — an allocation
// assertion (TestSteadyRequestAllocatesNothing) failed at random in a
// `go test -race` run: under the race detector sync.Pool drops items at
// random and the runtime allocates for its own bookkeeping, so a count of
// allocations is not the code's. Every test that counts allocations with
// testing.AllocsPerRun or testing.Benchmark, itself or through a helper of
// its package, must read the package's raceEnabled (a race / !race build
// tag pair of test files) and skip or leave out the count under -race.
func TestAllocationAssertionsSkipUnderRace(t *testing.T) {
	type fn struct {
		name, pkg string
		body      *ast.BlockStmt
	}
	var funcs []fn
	err := walkGo(filepath.Join("..", ".."), nil, true, 0, func(p string, _ *token.FileSet, f *ast.File) error {
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && fd.Recv == nil {
				funcs = append(funcs, fn{fd.Name.Name, filepath.Dir(p), fd.Body})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	counts := func(body ast.Node) bool {
		found := false
		ast.Inspect(body, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "testing" && (sel.Sel.Name == "AllocsPerRun" || sel.Sel.Name == "Benchmark") {
					found = true
				}
			}
			return !found
		})
		return found
	}
	helpers := map[string]bool{} // pkg dir + "." + name of functions that count
	for _, f := range funcs {
		if counts(f.body) {
			helpers[f.pkg+"."+f.name] = true
		}
	}
	var bad []string
	for _, f := range funcs {
		if !strings.HasPrefix(f.name, "Test") {
			continue
		}
		counting, readsRace := false, false
		ast.Inspect(f.body, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.Ident:
				if x.Name == "raceEnabled" {
					readsRace = true
				}
				if helpers[f.pkg+"."+x.Name] {
					counting = true
				}
			case *ast.SelectorExpr:
				if id, ok := x.X.(*ast.Ident); ok && id.Name == "testing" && (x.Sel.Name == "AllocsPerRun" || x.Sel.Name == "Benchmark") {
					counting = true
				}
			}
			return true
		})
		if counting && !readsRace {
			rel, _ := filepath.Rel(filepath.Join("..", ".."), f.pkg)
			bad = append(bad, filepath.ToSlash(rel)+": "+f.name)
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("%s counts allocations without skipping under -race (read raceEnabled)", b)
	}
}
