package main

import (
	"go/ast"
	"go/token"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// modulePath is the core module's import path; the integration module's
// packages share its prefix.
const modulePath = "github.com/toolshelf/toolshelf"

// A user class says who refers to an exported identifier from outside the
// package that declares it.
const (
	userHarness = "harness" // examples/ or integration/: code written like a harness's
	userAPI     = "api"     // another public package's exported signature or type
	userCore    = "core"    // any other toolshelf code: public, internal, cmd, tests
)

// export is one exported top-level identifier of a public package and the
// classes of its users outside that package.
type export struct {
	pkg, name string // pkg is the directory relative to the module root
	kind      string // "func", "type", "const" or "var"
	users     map[string][]string
}

// srcFile is one parsed Go file and the package directory it sits in.
type srcFile struct {
	dir  string
	f    *ast.File
	test bool
}

// scanUsers reads every Go file under root (tests included, testdata and
// node_modules skipped) and returns the exported top-level identifiers of the
// public packages with who uses each of them.
func scanUsers(root string) ([]*export, error) {
	files, pkgName, err := parseTree(root)
	if err != nil {
		return nil, err
	}
	exports := map[string]*export{} // "dir.Name"
	for _, fl := range files {
		if fl.test || isInternal(fl.dir) || fl.f.Name.Name == "main" || strings.HasPrefix(fl.dir, "examples") {
			continue
		}
		declared(fl.f, func(name, kind string) {
			exports[fl.dir+"."+name] = &export{pkg: fl.dir, name: name, kind: kind, users: map[string][]string{}}
		})
	}
	for _, fl := range files {
		scanFile(fl, pkgName, exports)
	}
	out := make([]*export, 0, len(exports))
	for _, e := range exports {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].pkg != out[j].pkg {
			return out[i].pkg < out[j].pkg
		}
		return out[i].name < out[j].name
	})
	return out, nil
}

// parseTree parses the Go files under root and maps each package's import
// path to its name.
func parseTree(root string) ([]srcFile, map[string]string, error) {
	var files []srcFile
	pkgName := map[string]string{}
	err := walkGo(root, nil, true, 0, func(p string, _ *token.FileSet, f *ast.File) error {
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		rel = filepath.ToSlash(rel)
		files = append(files, srcFile{rel, f, strings.HasSuffix(p, "_test.go")})
		if !strings.HasSuffix(p, "_test.go") {
			pkgName[importPath(rel)] = f.Name.Name
		}
		return nil
	})
	return files, pkgName, err
}

// scanFile records fl's references to the exports of other packages, and
// its own package's API naming its own exports.
func scanFile(fl srcFile, pkgName map[string]string, exports map[string]*export) {
	imports := map[string]string{} // local name → dir
	for _, im := range fl.f.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		dir, ok := strings.CutPrefix(path, modulePath+"/")
		if !ok {
			continue
		}
		local := pkgName[path]
		if im.Name != nil {
			local = im.Name.Name
		}
		imports[local] = dir
	}
	class := userCore
	if strings.HasPrefix(fl.dir, "examples") || strings.HasPrefix(fl.dir, "integration") {
		class = userHarness
	}
	record := func(n ast.Node, c string) {
		ast.Inspect(n, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && c == userAPI {
				// The package's own exported API naming its own type.
				if e := exports[fl.dir+"."+id.Name]; e != nil {
					e.users[c] = appendOnce(e.users[c], fl.dir)
				}
				return true
			}
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			dir, ok := imports[id.Name]
			if !ok || dir == fl.dir {
				return true
			}
			if e := exports[dir+"."+sel.Sel.Name]; e != nil {
				e.users[c] = appendOnce(e.users[c], fl.dir)
			}
			return true
		})
	}
	publicAPI := class == userCore && !fl.test && !isInternal(fl.dir) && fl.f.Name.Name != "main"
	for _, decl := range fl.f.Decls {
		if publicAPI {
			recordDecl(decl, class, record)
		} else {
			record(decl, class)
		}
	}
}

// recordDecl records one declaration of a public package: the parts of its
// exported API as userAPI, bodies and unexported parts as class.
func recordDecl(decl ast.Decl, class string, record func(ast.Node, string)) {
	switch d := decl.(type) {
	case *ast.FuncDecl:
		if d.Name.IsExported() && exportedRecv(d) {
			record(d.Type, userAPI)
		} else {
			record(d.Type, class)
		}
		if d.Body != nil {
			record(d.Body, class)
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				if !s.Name.IsExported() {
					record(s, class)
					continue
				}
				for _, n := range apiParts(s.Type) {
					record(n, userAPI)
				}
				for _, n := range privateParts(s.Type) {
					record(n, class)
				}
			case *ast.ValueSpec:
				if s.Type != nil && anyExported(s.Names) {
					record(s.Type, userAPI)
				}
				for _, v := range s.Values {
					record(v, class)
				}
			default:
				record(s, class)
			}
		}
	}
}

// handOff reports whether e is used outside its package only by toolshelf
// code that is neither harness-like nor another package's public API: an
// internal hand-off between stages.
func (e *export) handOff() bool {
	return len(e.users[userCore]) > 0 && len(e.users[userHarness]) == 0 && len(e.users[userAPI]) == 0
}

func declared(f *ast.File, add func(name, kind string)) {
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.IsExported() {
				add(d.Name.Name, "func")
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						add(s.Name.Name, "type")
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							add(n.Name, strings.ToLower(d.Tok.String()))
						}
					}
				}
			}
		}
	}
}

func exportedRecv(d *ast.FuncDecl) bool {
	if d.Recv == nil {
		return true
	}
	name, ok := recvName(d)
	return ok && ast.IsExported(name)
}

func anyExported(ns []*ast.Ident) bool {
	for _, n := range ns {
		if n.IsExported() {
			return true
		}
	}
	return false
}

func appendOnce(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

func importPath(dir string) string {
	if dir == "." {
		return modulePath
	}
	return modulePath + "/" + dir
}

func isInternal(dir string) bool {
	return dir == "internal" || strings.HasPrefix(dir, "internal/") || strings.Contains(dir, "/internal")
}

// apiParts returns the parts of an exported type that its users see: the
// exported fields of a struct, the exported methods of an interface, or the
// whole type otherwise.
func apiParts(t ast.Expr) []ast.Node {
	return typeParts(t, true)
}

// privateParts returns the rest of an exported type: its unexported fields
// and methods.
func privateParts(t ast.Expr) []ast.Node {
	return typeParts(t, false)
}

func typeParts(t ast.Expr, exported bool) []ast.Node {
	var fields *ast.FieldList
	switch t := t.(type) {
	case *ast.StructType:
		fields = t.Fields
	case *ast.InterfaceType:
		fields = t.Methods
	default:
		if exported {
			return []ast.Node{t}
		}
		return nil
	}
	var out []ast.Node
	for _, f := range fields.List {
		// An embedded field or interface counts as exported when its type is.
		visible := len(f.Names) == 0 || anyExported(f.Names)
		if visible == exported {
			out = append(out, f.Type)
		}
	}
	return out
}
