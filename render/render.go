package render

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/template"
	"text/template/parse"
	"unicode/utf8"

	"github.com/toolshelf/toolshelf/registry"
)

// Vars are the variables and fragments a template may read.
type Vars struct {
	// Static values come from the tool or the package: fixed text that is
	// the same for every session.
	Static map[string]string
	// Session values are declared when a session is created (cwd, os,
	// locale, the session's date ...) and stay fixed for its lifetime.
	Session map[string]string
	// Parts are named static fragments, inserted with {{part "name"}}.
	Parts map[string]string
}

// Check validates the declaration: no session or static variable may use a
// forbidden name, and no name may be declared in both tiers.
func (v Vars) Check() error {
	for _, tier := range []struct {
		name string
		m    map[string]string
	}{{"static", v.Static}, {"session", v.Session}} {
		for _, k := range sortedKeys(tier.m) {
			if what, ok := forbiddenVariable(k); ok {
				return fmt.Errorf("%w: %s variable %q is %s: it would change the description, and with it the cached prefix, every turn; put per-turn values in a message instead", errVariables, tier.name, k, what)
			}
		}
	}
	for _, k := range sortedKeys(v.Session) {
		if _, ok := v.Static[k]; ok {
			return fmt.Errorf("%w: %q is declared both as a static and as a session variable; declare it once", errVariables, k)
		}
	}
	return nil
}

// lookup returns a declared variable.
func (v Vars) lookup(name string) (string, bool) {
	if s, ok := v.Session[name]; ok {
		return s, true
	}
	s, ok := v.Static[name]
	return s, ok
}

// Description returns t's model-facing description: rendered when t.Template is
// set, t.Description verbatim otherwise.
func Description(t *registry.Tool, vars Vars) (string, error) {
	if !t.Template {
		return t.Description, nil
	}
	return renderText(t.Name, t.Description, vars)
}

// Render renders text, the description template of the tool named tool,
// with vars. Forbidden functions and variables, undeclared variables and
// unknown parts are reported before anything is executed, as an [*Error]
// naming the tool, the line and the name.
func renderText(tool, text string, vars Vars) (string, error) {
	if err := vars.Check(); err != nil {
		return "", err
	}
	var root *template.Template
	funcs := funcMap(tool, vars, &root)
	t, err := template.New(tool).Option("missingkey=error").Funcs(funcs).Parse(text)
	if err != nil {
		return "", &Error{Tool: tool, Line: templateLine(err.Error()), Err: ErrTemplate, Hint: err.Error()}
	}
	root = t
	for _, tt := range t.Templates() {
		if tt.Tree == nil {
			continue
		}
		c := checker{tool: tool, text: text, vars: vars, defined: t}
		if err := c.list(tt.Tree.Root, 0); err != nil {
			return "", err
		}
	}
	var b strings.Builder
	if err := t.Execute(&b, vars.data()); err != nil {
		var re *Error
		if errors.As(err, &re) {
			return "", re
		}
		return "", &Error{Tool: tool, Line: templateLine(err.Error()), Err: ErrTemplate, Hint: err.Error()}
	}
	if !utf8.ValidString(b.String()) {
		return "", &Error{Tool: tool, Err: ErrTemplate, Hint: "the rendered text is not valid UTF-8: a variable or part is not, or slice or printf cut a character in two (they count bytes)"}
	}
	return b.String(), nil
}

// maxSectionDepth bounds nested render_section calls.
const maxSectionDepth = 32

// funcMap returns the pure helpers and the failing stubs. root is set once
// the template is parsed, for render_section.
func funcMap(tool string, vars Vars, root **template.Template) template.FuncMap {
	sections := 0 // render_section calls in progress; one render runs on one goroutine
	m := template.FuncMap{
		"part": func(name string) (string, error) {
			p, ok := vars.Parts[name]
			if !ok {
				return "", &Error{Tool: tool, Name: name, Err: errUnknownPart, Hint: "declare it in Vars.Parts; known parts: " + strings.Join(sortedKeys(vars.Parts), ", ")}
			}
			return p, nil
		},
		"tag": func(name, body string) string { return "<" + name + ">" + body + "</" + name + ">" },
		"raw": func(s string) string { return s },
		"join": func(sep string, items ...any) (string, error) {
			var parts []string
			for _, it := range items {
				switch v := it.(type) {
				case string:
					parts = append(parts, v)
				case []string:
					parts = append(parts, v...)
				default:
					return "", &Error{Tool: tool, Name: "join", Err: ErrTemplate, Hint: fmt.Sprintf("join takes strings, got %T", it)}
				}
			}
			return strings.Join(parts, sep), nil
		},
		"has": func(name string) (bool, error) {
			if what, ok := forbiddenVariable(name); ok {
				return false, &Error{Tool: tool, Name: name, Err: errForbiddenVariable, Hint: "it is " + what}
			}
			v, ok := vars.lookup(name)
			return ok && v != "", nil
		},
		"render_section": func(name string) (string, error) {
			// Each section renders in its own Execute, out of reach of
			// text/template's depth limit: a section that renders itself
			// would recurse until the stack overflows and the process dies.
			if sections >= maxSectionDepth {
				return "", &Error{Tool: tool, Name: name, Err: ErrTemplate, Hint: fmt.Sprintf("render_section nests more than %d deep: a section renders itself", maxSectionDepth)}
			}
			sections++
			defer func() { sections-- }()
			t := (*root).Lookup(name)
			if t == nil || t == *root {
				return "", &Error{Tool: tool, Name: name, Err: errUnknownPart, Hint: "define it with {{define \"" + name + "\"}}...{{end}}"}
			}
			var b strings.Builder
			if err := t.Execute(&b, vars.data()); err != nil {
				return "", err
			}
			return b.String(), nil
		},
	}
	for _, name := range forbiddenFunctions() {
		what, _ := forbiddenFunction(name)
		m[name] = func(...any) (string, error) {
			return "", &Error{Tool: tool, Name: name, Err: errForbiddenFunction, Hint: "templates are rendered once per session and must be pure; " + what + " would differ between sessions and processes"}
		}
	}
	return m
}

// checker walks a parse tree and reports forbidden functions, forbidden or
// undeclared variables and unknown parts before anything runs.
type checker struct {
	tool    string
	text    string
	vars    Vars
	defined *template.Template
}

func (c *checker) line(n parse.Node) int {
	pos := int(n.Position())
	if pos > len(c.text) {
		pos = len(c.text)
	}
	return strings.Count(c.text[:pos], "\n") + 1
}

// list checks a node list. depth counts enclosing range/with blocks, inside
// which dot is no longer the variables.
func (c *checker) list(l *parse.ListNode, depth int) error {
	if l == nil {
		return nil
	}
	for _, n := range l.Nodes {
		if err := c.node(n, depth); err != nil {
			return err
		}
	}
	return nil
}

func (c *checker) node(n parse.Node, depth int) error {
	switch n := n.(type) {
	case *parse.ActionNode:
		return c.pipe(n.Pipe, depth)
	case *parse.IfNode:
		return c.branch(&n.BranchNode, depth, depth)
	case *parse.RangeNode:
		return c.branch(&n.BranchNode, depth, depth+1)
	case *parse.WithNode:
		return c.branch(&n.BranchNode, depth, depth+1)
	case *parse.TemplateNode:
		return c.pipe(n.Pipe, depth)
	case *parse.ListNode:
		return c.list(n, depth)
	}
	return nil
}

func (c *checker) branch(b *parse.BranchNode, depth, inner int) error {
	if err := c.pipe(b.Pipe, depth); err != nil {
		return err
	}
	if err := c.list(b.List, inner); err != nil {
		return err
	}
	return c.list(b.ElseList, depth)
}

func (c *checker) pipe(p *parse.PipeNode, depth int) error {
	if p == nil {
		return nil
	}
	for _, cmd := range p.Cmds {
		for i, arg := range cmd.Args {
			if err := c.arg(arg, depth); err != nil {
				return err
			}
			// Literal arguments of part and render_section are checked here,
			// so a typo fails before anything runs.
			if id, ok := cmd.Args[0].(*parse.IdentifierNode); ok && i == 1 {
				if s, ok := arg.(*parse.StringNode); ok {
					if err := c.partName(id.Ident, s); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

func (c *checker) partName(fn string, s *parse.StringNode) error {
	switch fn {
	case "part":
		if _, ok := c.vars.Parts[s.Text]; !ok {
			return &Error{Tool: c.tool, Line: c.line(s), Name: s.Text, Err: errUnknownPart, Hint: "declare it in Vars.Parts"}
		}
	case "render_section":
		if c.defined.Lookup(s.Text) == nil {
			return &Error{Tool: c.tool, Line: c.line(s), Name: s.Text, Err: errUnknownPart, Hint: "define it with {{define \"" + s.Text + "\"}}...{{end}}"}
		}
	case "has":
		if what, ok := forbiddenVariable(s.Text); ok {
			return &Error{Tool: c.tool, Line: c.line(s), Name: s.Text, Err: errForbiddenVariable, Hint: "it is " + what + "; per-turn values belong in messages, not in tool descriptions"}
		}
	}
	return nil
}

func (c *checker) arg(n parse.Node, depth int) error {
	switch n := n.(type) {
	case *parse.IdentifierNode:
		if what, ok := forbiddenFunction(n.Ident); ok {
			return &Error{Tool: c.tool, Line: c.line(n), Name: n.Ident, Err: errForbiddenFunction, Hint: "templates are rendered once per session and must be pure; " + what + " would differ between sessions and processes; declare the value as a session variable instead"}
		}
	case *parse.FieldNode:
		if depth == 0 {
			return c.variable(n, n.Ident[0])
		}
	case *parse.VariableNode:
		// $ is the root data; $.name reads a variable whatever the depth.
		if len(n.Ident) > 1 && n.Ident[0] == "$" {
			return c.variable(n, n.Ident[1])
		}
	case *parse.ChainNode:
		return c.arg(n.Node, depth)
	case *parse.PipeNode:
		return c.pipe(n, depth)
	}
	return nil
}

func (c *checker) variable(n parse.Node, name string) error {
	if what, ok := forbiddenVariable(name); ok {
		return &Error{Tool: c.tool, Line: c.line(n), Name: name, Err: errForbiddenVariable, Hint: "it is " + what + "; per-turn values belong in messages, not in tool descriptions"}
	}
	if _, ok := c.vars.lookup(name); !ok {
		known := append(sortedKeys(c.vars.Static), sortedKeys(c.vars.Session)...)
		slices.Sort(known)
		return &Error{Tool: c.tool, Line: c.line(n), Name: name, Err: errUndeclaredVariable, Hint: "declare it as a static or session variable; declared: " + strings.Join(known, ", ")}
	}
	return nil
}

// templateLine extracts the line from a text/template error
// ("template: name:LINE:COL: ..."); 0 when absent.
func templateLine(msg string) int {
	_, rest, ok := strings.Cut(msg, "template: ")
	if !ok {
		return 0
	}
	_, rest, ok = strings.Cut(rest, ":")
	if !ok {
		return 0
	}
	n := 0
	for _, r := range rest {
		if r < '0' || r > '9' {
			break
		}
		n = n*10 + int(r-'0')
	}
	return n
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// data is the template data: static variables, then session variables,
// which win on a shared name (Check rejects shared names anyway).
func (v Vars) data() map[string]string {
	data := make(map[string]string, len(v.Static)+len(v.Session))
	maps.Copy(data, v.Static)
	maps.Copy(data, v.Session)
	return data
}
