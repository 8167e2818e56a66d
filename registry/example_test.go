package registry_test

import (
	"fmt"

	"github.com/toolshelf/toolshelf/registry"
)

// A registry holds the harness's own tools and one group per MCP server;
// snapshots list them in (group, name) order whatever the order of
// registration.
func ExampleRegistry_Snapshot() {
	r := registry.New(nil)
	_ = r.Register(registry.Tool{Name: "Write"}, registry.Tool{Name: "Read", DeferLoading: registry.DeferFalse})
	_ = r.AddGroup(registry.Group{Name: "github", Description: "GitHub's MCP server", DefaultDefer: registry.DeferTrue})
	_ = r.Register(registry.Tool{Name: "create_issue", Group: "github"})
	if mine, err := r.CheckSelfBuilt(registry.Tool{Name: "count_todos", Description: "Count TODO comments."}); err == nil {
		_ = r.Register(mine) // a model-written tool kept for every later session
	}
	for _, t := range r.Snapshot().Tools() {
		fmt.Printf("%-28s %-10s defer_loading=%s\n", t.Name, t.Source, t.DeferLoading)
	}
	// Output:
	// Read                         built-in   defer_loading=false
	// Write                        built-in   defer_loading=unset
	// mcp__github__create_issue    mcp        defer_loading=unset
	// count_todos                  self-built defer_loading=true
}

// ParseCatalog reads tools in the shapes found in the wild; a catalog with
// a "server" key becomes that MCP server's group.
func ExampleParseCatalog() {
	c, err := registry.ParseCatalog([]byte(`{"server": "time", "description": "Time and time zones.",
		"tools": [{"name": "get_current_time", "inputSchema": {"type": "object", "properties": {"timezone": {"type": "string"}}}}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	r := registry.New(nil)
	if err := r.Import(c); err != nil {
		fmt.Println(err)
		return
	}
	t, _ := r.Snapshot().Tool("mcp__time__get_current_time")
	fmt.Println(c.Format, t.Name, string(t.RawSchema))

	// A tool whose schema is unusable is left out and reported; the rest
	// of the catalog still imports.
	c, _ = registry.ParseCatalog([]byte(`[{"name": "x", "inputSchema": [1]}, {"name": "y", "inputSchema": {"$ref": "#"}}]`))
	for _, j := range c.Rejected {
		fmt.Println(j)
	}
	// Output:
	// catalog mcp__time__get_current_time {"type":"object","properties":{"timezone":{"type":"string"}}}
	// builtin/x: tool 0: registry: invalid input schema: tool "x": the schema must be a JSON object, got [1]
	// builtin/y: tool 1: registry: invalid input schema: tool "y": unusable schema: at the root: a reference cycle that never moves into a member or element: validating it would recurse forever (the root reaches itself through $ref, allOf, anyOf, oneOf, not, if/then/else or dependentSchemas)
}

// A tool's MCP hints written in code: Hint gives the *bool each takes, and
// the registry reads them back as a tool's own claims.
func ExampleHint() {
	r := registry.New(nil)
	err := r.Register(registry.Tool{
		Name: "read_log", Description: "Read the service log.",
		Annotations: &registry.Annotations{ReadOnlyHint: registry.Hint(true), DestructiveHint: registry.Hint(false)},
	})
	if err != nil {
		panic(err)
	}
	t, _ := r.Snapshot().Tool("read_log")
	fmt.Println(*t.Annotations.ReadOnlyHint, *t.Annotations.DestructiveHint, t.Annotations.OpenWorldHint == nil)
	// Output: true false true
}
