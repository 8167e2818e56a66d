package request

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
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
// X" reads the one view (Session.see, or the view's decided lists
// s.tools.std),
// and only the admission decision (Session.decide) applies the mode, the
// tier and the rules to a tool.
func TestEveryPathReadsTheView(t *testing.T) {
	funcs := viewFuncs(t)
	for path, via := range map[string]string{
		"Session.Lookup":               "see", // and so the dispatcher, searchTool, resolveShort
		"dispatchSession.Removed":      "see",
		"dispatchSession.VisibleNames": "visibleNames", // "did you mean", short names
		"Session.visibleNames":         "std",
		"Session.searchScope":          "std", // tool_search: results, ambiguity, gone lists; built here only
		"Session.Call":                 "searchScope",
		"Session.Answer":               "searchScope", // Client-mode answers
		"Session.announced":            "see",         // Sync's and approvals' announcements
		"Session.announceTurn":         "announced",
		"Session.adopt":                "announceTurn",
		"Session.ApproveChange":        "announceTurn",
		"Session.restoreLoaded":        "see",
		"Session.preloadable":          "see",         // Config.Preload's schemas
		"Session.preload":              "searchScope", // its search's scope
		"newClientHistory":             "std",         // Client references and tool_search_output
		"Session.admits":               "decide",      // an arrival enters
		"Session.RegisterSelfBuilt":    "decide",      // a self-built tool enters
		"Session.rebuildView":          "decide",      // SetView, Sync, restore, approval
		"Session.SetView":              "applyView",
		"Session.applyView":            "rebuildView",
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

// TestOneWriterOfTheLoadedSet is issue 42's invariant over the package's
// source: the loaded set is the tool state's (toolstate.go), written by
// toolState.markLoaded and unload alone; and every load the session makes
// — tool_search, Client mode's search, a preload, a restored set — marks
// it only in a function that ran the dispatcher's guard
// (Session.guardLoad), the one caller of the dispatcher's Search and
// Load. The dispatcher's own load (a call of a tool not loaded, answered
// with its schema) reaches markLoaded through dispatchSession.MarkLoaded,
// after its permission check on tool_search.
func TestOneWriterOfTheLoadedSet(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	writers := map[string]bool{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			key := funcKey(fd)
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.SelectorExpr:
					if inner, ok := n.X.(*ast.SelectorExpr); ok && inner.Sel.Name == "tools" && n.Sel.Name == "loaded" && name != "toolstate.go" {
						t.Errorf("%s (%s) reads the loaded set's store: only toolstate.go may", key, name)
					}
					if inner, ok := n.X.(*ast.SelectorExpr); ok && inner.Sel.Name == "loaded" && (n.Sel.Name == "Add" || n.Sel.Name == "Forget") {
						writers[key] = true
					}
				case *ast.Ident:
					if n.Name == "NewLoadedSet" && key != "newToolState" {
						t.Errorf("%s makes a loaded set: a session has one, the tool state's", key)
					}
				}
				return true
			})
		}
	}
	assert.Equal(t, map[string]bool{"toolState.markLoaded": true, "toolState.unload": true}, writers, "the writers of the loaded set")

	funcs := viewFuncs(t)
	var markers []string
	for name, fn := range funcs {
		u := uses(fn)
		if u["markLoaded"] && name != "toolState.markLoaded" {
			markers = append(markers, name)
		}
		if (u["d.Search"] || u["d.Load"] || u["Dispatcher.Search"] || u["Dispatcher.Load"]) && name != "Session.guardLoad" {
			t.Errorf("%s runs the dispatcher's search guard itself: Session.guardLoad is its one caller", name)
		}
		for _, m := range []string{"searcher.Load", "searcher.Call", "searcher.Sure"} {
			if searcherCall(fn, m) && !u["guardLoad"] {
				t.Errorf("%s searches (%s) without the dispatcher's guard", name, m)
			}
		}
	}
	slices.Sort(markers)
	assert.Equal(t, []string{"Session.Answer", "Session.build", "Session.restoreLoaded", "Session.search", "dispatchSession.MarkLoaded"}, markers,
		"the functions that mark schemas loaded")
	for _, name := range []string{"Session.Answer", "Session.restoreLoaded", "Session.search", "Session.preload"} {
		assert.True(t, uses(funcs[name])["guardLoad"], "%s loads through the dispatcher's guard", name)
	}
	// build marks only what preload, which ran the guard, returned.
	assert.True(t, uses(funcs["Session.build"])["preload"], "Session.build marks the preload's names")
}

// funcKey is "Recv.Name" for a method, the name for a function.
func funcKey(fd *ast.FuncDecl) string {
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
	return key
}

// searcherCall reports whether fn's body calls X.searcher.M for m
// "searcher.M".
func searcherCall(fn *ast.FuncDecl, m string) bool {
	field, method, _ := strings.Cut(m, ".")
	found := false
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == method {
			if inner, ok := sel.X.(*ast.SelectorExpr); ok && inner.Sel.Name == field {
				found = true
			}
		}
		return true
	})
	return found
}

// TestGovernanceSeamOneWay (issue 42): the session reads the dispatcher's
// rules once, and never steers them: the rules' answer on a tool is
// resolved in one function (denial, once per session and per freeze,
// never per decision), the dispatcher's options are read when a session
// starts (NewSession: the Observer its own events go to; unmatchedRules:
// the rules and hook patterns), and the session's own events go to the
// Observer it took then.
func TestGovernanceSeamOneWay(t *testing.T) {
	for name, fn := range viewFuncs(t) {
		u := uses(fn)
		if u["Denied"] && name != "denial" && name != "governedPolicy" {
			t.Errorf("%s reads a Denied function: only denial resolves it", name)
		}
		if callsMethod(fn, "Options") && name != "NewSession" && name != "unmatchedRules" {
			t.Errorf("%s reads the dispatcher's options: a session reads them once, when it starts", name)
		}
		if u["Observer"] && name != "NewSession" {
			t.Errorf("%s reaches for an Observer: the session's own events go to s.obs", name)
		}
		if u["governedPolicy"] && name != "Cache.get" && name != "freeze" && name != "newFrozen" {
			// governedPolicy is per freeze (the plan), never per decision.
			if name == "Session.deniedBy" || name == "Session.denied" || name == "Session.decide" {
				t.Errorf("%s builds a policy per decision", name)
			}
		}
	}
}

// callsMethod reports whether fn's body calls a method m with no
// arguments (x.m()).
func callsMethod(fn *ast.FuncDecl, m string) bool {
	found := false
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && len(c.Args) == 0 {
			if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == m {
				found = true
			}
		}
		return true
	})
	return found
}
