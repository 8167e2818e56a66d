package execute

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestStepCommentsMatchDoc (issue 42): the numbered step comments of
// Dispatcher.dispatch are the package doc's steps, in the doc's order and
// under the doc's names, so that a reader of either finds the other.
func TestStepCommentsMatchDoc(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	docStep := regexp.MustCompile(`(?m)^//  ([0-9])\. ([^:,;]+)`)
	var titles []string
	for i, m := range docStep.FindAllStringSubmatch(string(doc), -1) {
		if m[1] != strconv.Itoa(i+1) {
			t.Fatalf("doc.go: step %s where %d was due", m[1], i+1)
		}
		titles = append(titles, lead(m[2]))
	}
	if len(titles) < 8 {
		t.Fatalf("doc.go lists %d steps; the check reads nothing", len(titles))
	}

	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "dispatcher.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var fn *ast.FuncDecl
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == "dispatch" {
			fn = fd
		}
	}
	if fn == nil {
		t.Fatal("no func dispatch in dispatcher.go")
	}
	codeStep := regexp.MustCompile(`^// ([0-9]+)\. (.*)`)
	next := 1
	for _, cg := range f.Comments {
		if cg.Pos() < fn.Body.Lbrace || cg.End() > fn.Body.Rbrace {
			continue
		}
		m := codeStep.FindStringSubmatch(cg.List[0].Text)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		if n != next {
			t.Errorf("%s: step %d where the doc's step %d is due", fset.Position(cg.Pos()), n, next)
			next = n
		}
		if n >= 1 && n <= len(titles) && !strings.HasPrefix(strings.ToLower(m[2]), titles[n-1]) {
			t.Errorf("%s: step %d reads %q; the doc calls it %q", fset.Position(cg.Pos()), n, m[2], titles[n-1])
		}
		next++
	}
	if next != len(titles)+1 {
		t.Errorf("dispatch comments %d of the doc's %d steps", next-1, len(titles))
	}
}

// lead returns the first two words of a step's title, lower case.
func lead(title string) string {
	w := strings.Fields(strings.ToLower(title))
	if len(w) > 2 {
		w = w[:2]
	}
	return strings.Join(w, " ")
}
