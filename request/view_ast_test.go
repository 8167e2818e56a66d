package request

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// viewFuncs parses the package's non-test files and returns each
// function's body by name ("Recv.Name" for methods, the receiver's type
// without its pointer; closures belong to the function they are in).
func viewFuncs(t *testing.T) map[string]*ast.FuncDecl {
	t.Helper()
	fset := token.NewFileSet()
	out := map[string]*ast.FuncDecl{}
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		require.NoError(t, err)
		f, err := parser.ParseFile(fset, name, src, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			key := fd.Name.Name
			if fd.Recv != nil && len(fd.Recv.List) == 1 {
				typ := fd.Recv.List[0].Type
				if st, ok := typ.(*ast.StarExpr); ok {
					typ = st.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					key = id.Name + "." + key
				}
			}
			out[key] = fd
		}
	}
	return out
}

// uses reports the selectors (x.Name) and called names in fn's body.
func uses(fn *ast.FuncDecl) map[string]bool {
	out := map[string]bool{}
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			out[sel.Sel.Name] = true
			if x, ok := sel.X.(*ast.Ident); ok {
				out[x.Name+"."+sel.Sel.Name] = true
			}
		}
		return true
	})
	return out
}

// TestEveryPathReadsTheView is issue 34's invariant as a table over the
// package's source: every path that answers "may the model see or call
// X" reads the one view (Session.see, or the view's decided lists s.vw),
// and only the admission decision (Session.decide) applies the mode, the
// tier and the rules to a tool.
func TestEveryPathReadsTheView(t *testing.T) {
	funcs := viewFuncs(t)
	for path, via := range map[string]string{
		"Session.Lookup":               "see", // and so the dispatcher, searchTool, resolveShort
		"dispatchSession.Removed":      "see",
		"dispatchSession.VisibleNames": "visibleNames", // "did you mean", short names
		"Session.visibleNames":         "vw",
		"Session.liveScope":            "vw", // tool_search: results, ambiguity, gone lists
		"Session.Call":                 "liveScope",
		"Session.Answer":               "liveScope", // Client-mode answers
		"Session.announced":            "see",       // Sync's and approvals' announcements
		"Session.announceTurn":         "announced",
		"Session.adopt":                "announceTurn",
		"Session.ApproveChange":        "announceTurn",
		"Session.restoreLoaded":        "see",
		"Session.preload":              "see",       // Config.Preload's schemas
		"Session.preloadSearch":        "liveScope", // its search's scope
		"newClientHistory":             "vw",        // Client references and tool_search_output
		"Session.admits":               "decide",    // an arrival enters
		"Session.RegisterSelfBuilt":    "decide",    // a self-built tool enters
		"Session.rebuildView":          "decide",    // SetView, Sync, restore, approval
		"Session.SetView":              "rebuildView",
	} {
		fn, ok := funcs[path]
		require.True(t, ok, "no function %s", path)
		assert.True(t, uses(fn)[via], "%s does not read the view through %s", path, via)
	}
	// The decision's ingredients are read by decide alone (deniedBy again
	// only for an error's wording once decide said "denied").
	for name, fn := range funcs {
		u := uses(fn)
		for _, ingredient := range []string{"visibility.Allows", "TierOf", "denied"} {
			if u[ingredient] && name != "Session.decide" && name != "Session.denied" {
				t.Errorf("%s reads %s: only Session.decide decides what the model may see", name, ingredient)
			}
		}
	}
}
