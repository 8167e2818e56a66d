package main

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"

	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// catalogs are four real MCP servers' tools/list answers, embedded so that
// the example needs no network (see catalogs/README.md for their sources
// and licences).
//
//go:embed catalogs/*.tools.json
var catalogs embed.FS

// builtins are the harness's own tools: small, used on most turns, and so
// kept resident. Their handlers are local fakes returning canned data.
func builtins(sess **request.Session) []registry.Tool {
	readOnly := true
	return []registry.Tool{
		{
			Name:        "Read",
			Description: "Read a file from the workspace. Returns numbered lines; pass offset and limit for long files.",
			RawSchema:   json.RawMessage(`{"type":"object","properties":{"file_path":{"type":"string","description":"Absolute path of the file."},"offset":{"type":"integer","description":"First line to read (1-based)."},"limit":{"type":"integer","description":"Number of lines to read."}},"required":["file_path"],"additionalProperties":false}`),
			Annotations: &registry.Annotations{ReadOnlyHint: &readOnly},
			Handler:     canned("1\tpackage main\n2\t// TODO: handle errors\n"),
		},
		{
			Name:        "Grep",
			Description: "Search file contents with a regular expression. Returns matching lines as path:line:text.",
			RawSchema:   json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string","description":"Regular expression (RE2 syntax)."},"path":{"type":"string","description":"Directory or file to search; the workspace root by default."}},"required":["pattern"],"additionalProperties":false}`),
			Annotations: &registry.Annotations{ReadOnlyHint: &readOnly},
			Handler:     canned("main.go:2:// TODO: handle errors\n"),
		},
		{
			Name:        "Edit",
			Description: "Replace one exact occurrence of old_string with new_string in a file. Read the file first.",
			RawSchema:   json.RawMessage(`{"type":"object","properties":{"file_path":{"type":"string","description":"Absolute path of the file."},"old_string":{"type":"string","description":"Text to replace; must occur exactly once."},"new_string":{"type":"string","description":"Replacement text."}},"required":["file_path","old_string","new_string"],"additionalProperties":false}`),
			Handler:     canned("edited 1 occurrence"),
		},
		{
			Name:        "Bash",
			Description: "Run a shell command in the workspace and return its output. Prefer Read, Grep and Edit for files.",
			RawSchema:   json.RawMessage(`{"type":"object","properties":{"command":{"type":"string","description":"The command line."},"timeout":{"type":"integer","description":"Timeout in seconds (default 120)."}},"required":["command"],"additionalProperties":false}`),
			Handler:     canned("ok"),
		},
		{
			// ToolCreate is how the model writes itself a tool: the
			// harness registers it in the session (Session.RegisterSelfBuilt)
			// and it becomes callable through defer_execute.
			Name:        "ToolCreate",
			Description: "Create a tool for the rest of this conversation when no existing tool fits. Give it a snake_case name, a one-paragraph description, a JSON Schema for its input and the script that implements it.",
			RawSchema:   json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"snake_case tool name."},"description":{"type":"string","description":"What the tool does and returns."},"input_schema":{"type":"object","description":"JSON Schema of the tool's input (type object)."},"script":{"type":"string","description":"The implementation, run in the sandbox."}},"required":["name","description","input_schema","script"],"additionalProperties":false}`),
			Handler: func(ctx context.Context, params json.RawMessage) (registry.Result, error) {
				var p struct {
					Name        string          `json:"name"`
					Description string          `json:"description"`
					InputSchema json.RawMessage `json:"input_schema"`
				}
				if err := json.Unmarshal(params, &p); err != nil {
					return registry.Result{}, err
				}
				// The example does not run the script: the self-built
				// tool's handler is a fake with a canned answer.
				err := (*sess).RegisterSelfBuilt(registry.Tool{
					Name: p.Name, Description: p.Description, RawSchema: p.InputSchema,
					Handler: canned(`{"todos":17,"files":9}`),
				})
				if err != nil {
					return registry.Result{Text: "tool not created: " + err.Error(), IsError: true}, nil
				}
				return registry.Result{Text: "created tool " + p.Name + "; it is deferred: load it with tool_search, call it with defer_execute"}, nil
			},
		},
	}
}

// mcpHandlers are fake MCP servers, by server and tool name as the server
// knows it: the one tool the scripted model calls answers with canned data. Every other MCP tool has no handler, and a
// call of it would get the dispatcher's "no handler" error result.
var mcpHandlers = map[string]registry.Handler{
	"github/create_pull_request": func(ctx context.Context, params json.RawMessage) (registry.Result, error) {
		var p struct {
			Draft bool `json:"draft"`
		}
		_ = json.Unmarshal(params, &p)
		return registry.Result{Text: fmt.Sprintf(`{"number":42,"url":"https://github.com/acme/webapp/pull/42","draft":%t}`, p.Draft)}, nil
	},
}

func canned(text string) registry.Handler {
	return func(context.Context, json.RawMessage) (registry.Result, error) {
		return registry.Result{Text: text}, nil
	}
}

// newRegistry registers the built-in tools and imports the embedded MCP
// catalogs, each as its own group: tools become mcp__<server>__<tool>.
func newRegistry(sess **request.Session) (*registry.Registry, []string, error) {
	reg := registry.New(nil)
	if err := reg.Register(builtins(sess)...); err != nil {
		return nil, nil, err
	}
	files, err := fs.Glob(catalogs, "catalogs/*.tools.json")
	if err != nil {
		return nil, nil, err
	}
	var servers []string
	for _, f := range files { // fs.Glob returns sorted names
		data, err := catalogs.ReadFile(f)
		if err != nil {
			return nil, nil, err
		}
		cat, err := registry.ParseCatalog(data)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", f, err)
		}
		for i := range cat.Tools {
			cat.Tools[i].Handler = mcpHandlers[cat.Server+"/"+cat.Tools[i].Name]
		}
		if err := reg.Import(cat); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", f, err)
		}
		servers = append(servers, fmt.Sprintf("%s %d", cat.Server, len(cat.Tools)))
	}
	return reg, servers, nil
}

// newDispatcher is the governance every call goes through, resident or
// deferred: an Ask rule on GitHub's create tools answered by a callback
// (here the scripted user says yes), a Deny rule on Kubernetes deletions,
// and a hook that opens every pull request as a draft.
func newDispatcher(log func(string)) (*execute.Dispatcher, error) {
	return execute.New(&execute.Options{
		Permissions: execute.MustPermissions("Ask(mcp__github__create_*)", "Deny(mcp__kubernetes__*_delete)"),
		Ask: func(ctx context.Context, req execute.AskRequest) (bool, error) {
			log(fmt.Sprintf("ask     %s (rule %s, via %s): the user approves", req.Tool, req.Rule, req.Via))
			return true, nil
		},
		Hooks: []execute.Hook{{
			Name:    "draft-first",
			Pattern: "mcp__github__create_pull_request",
			Before: func(ctx context.Context, c *execute.Call) execute.Verdict {
				var p map[string]any
				if err := json.Unmarshal(c.Params, &p); err != nil {
					return execute.Verdict{Block: true, Reason: "params are not an object"}
				}
				p["draft"] = true
				out, _ := json.Marshal(p) // map keys sorted: deterministic
				return execute.Verdict{Params: out}
			},
		}},
		Observer: execute.OnEvent(func(e execute.Event) {
			switch e.Kind {
			case "allowed", "approved", "denied", "rejected",
				"blocked", "rewritten", "unloaded":
				line := fmt.Sprintf("guard   %s %s", e.Kind, e.Tool)
				if e.Rule != "" && e.Rule != "default" {
					line += " by " + e.Rule
				}
				if e.Hook != "" {
					line += " by hook " + e.Hook
				}
				if e.Via != "" {
					line += " (via " + e.Via + ")"
				}
				log(strings.TrimSpace(line))
			}
		}),
	})
}
