// Command apicount counts the exported identifiers of every non-test,
// non-main package under a directory (default "."): exported top-level
// consts, vars, types and funcs, and exported methods of exported types —
// what go doc lists, fields aside. With -v it lists them.
//
//	go run ./internal/cmd/apicount        # counts per package and totals
//	go run ./internal/cmd/apicount -v .   # and the identifiers
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	verbose := flag.Bool("v", false, "list the identifiers")
	users := flag.Bool("users", false, "list each public identifier's users outside its package")
	flag.Parse()
	root := "."
	if flag.NArg() > 0 {
		root = flag.Arg(0)
	}
	if *users {
		listUsers(root)
		return
	}
	counts, err := count(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "apicount:", err)
		os.Exit(1)
	}
	var pkgs []string
	for p := range counts {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	total, public := 0, 0
	for _, p := range pkgs {
		n := len(counts[p])
		total += n
		internal := isInternal(p)
		if !internal {
			public += n
		}
		fmt.Printf("%-40s %4d\n", p, n)
		if *verbose {
			sort.Strings(counts[p])
			fmt.Printf("    %s\n", strings.Join(counts[p], " "))
		}
	}
	fmt.Printf("%-40s %4d\n%-40s %4d\n", "total (public packages)", public, "total (incl. internal/)", total)
}

// listUsers prints, for each exported top-level identifier of a public
// package, who uses it outside the package; "hand-off" marks those used only
// by other toolshelf code, "unused" those used by nobody outside.
func listUsers(root string) {
	exports, err := scanUsers(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "apicount:", err)
		os.Exit(1)
	}
	for _, e := range exports {
		mark := ""
		switch {
		case e.handOff():
			mark = "hand-off"
		case len(e.users) == 0:
			mark = "unused"
		}
		fmt.Printf("%-9s %-24s %-32s %-5s h=%v a=%v c=%v\n", mark, e.pkg, e.name, e.kind,
			e.users[userHarness], e.users[userAPI], e.users[userCore])
	}
}

// count returns, per package directory under root, the exported identifiers
// apicount counts.
func count(root string) (map[string][]string, error) {
	counts := map[string][]string{}
	err := walkGo(root, []string{"examples"}, false, 0, func(p string, _ *token.FileSet, f *ast.File) error {
		if f.Name.Name == "main" {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				name := d.Name.Name
				if d.Recv != nil {
					recv, ok := recvName(d)
					if !ok || !ast.IsExported(recv) {
						continue
					}
					name = recv + "." + name
				}
				counts[rel] = append(counts[rel], name)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							counts[rel] = append(counts[rel], s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								counts[rel] = append(counts[rel], n.Name)
							}
						}
					}
				}
			}
		}
		return nil
	})
	return counts, err
}
