package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
	"github.com/toolshelf/toolshelf/internal/engine/wire"
)

// FormatMCP is the [Catalog.Format] of an MCP tools/list result, or a bare
// array of MCP tools: a catalog that names no server, which
// [Registry.Import] refuses until [Catalog.Server] is set.
const FormatMCP = "mcp"

// The other catalog formats [ParseCatalog] recognises: a catalog file, and
// the three providers' tools arrays, named as request.Provider names the
// provider.
const (
	formatCatalogFile     = "catalog"            // {"server" or "catalog", "description", "tools": [MCP tools]}
	formatOpenAIChat      = wire.OpenAIChat      // [{"type":"function","function":{...}}]
	formatOpenAIResponses = wire.OpenAIResponses // [{"type":"function","name":...,"parameters":...}]
	formatAnthropic       = wire.Anthropic       // [{"name","description","input_schema"}]
)

// Catalog is a list of tools imported from JSON.
type Catalog struct {
	// Server, when set, makes the catalog an MCP server's group: tool names
	// are the server's own and are exposed as mcp__<server>__<tool>.
	// Without it the tools join the built-in group under their own names.
	//
	// An MCP tools/list result (Format FormatMCP) does not say which server
	// it came from, so [Registry.Import] refuses it without Server, with an
	// error wrapping [ErrNoServer]: set Server to the server's name (the
	// command line's --server NAME). A catalog file names its group itself:
	// "server" for an MCP server's, "catalog" for built-in tools.
	Server string
	// Description is the server's (or catalog's) description.
	Description string
	// Format is the shape the catalog was found in: [FormatMCP], "catalog"
	// (a catalog file), or the provider whose tools array it is, as
	// request.Provider names it ("openai-chat", "openai-responses",
	// "anthropic").
	Format string
	// Tools are the parsed tools, in file order.
	Tools []Tool
	// Rejected are the tools left out because their own definition is
	// unusable (a schema that does not resolve, nests too deep, loops ...),
	// in file order. [Registry.Import] reports them, or fails on them with
	// [Options.StrictImport].
	Rejected []Rejection
}

// LoadCatalog reads and parses a catalog file. Errors name the file.
func LoadCatalog(path string) (*Catalog, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := ParseCatalog(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// ParseCatalog parses tools in any of the shapes found in the wild: an MCP
// tools/list result (bare or in a JSON-RPC response), an OpenAI Chat
// Completions or Responses tools array, an Anthropic tools array, or a
// catalog file ({"server", "description", "tools"}). Each tool's schema keeps
// its source key order. A "defer_loading" field on a tool, in any shape, sets
// its [DeferLoading]. Errors name the tool at fault.
func ParseCatalog(data []byte) (*Catalog, error) {
	if !json.Valid(data) {
		return nil, fmt.Errorf("%w: not valid JSON: %s", errCatalog, syntaxAt(data))
	}
	data = bytes.TrimSpace(data)
	c := &Catalog{}
	var elems []json.RawMessage
	switch {
	case len(data) > 0 && data[0] == '[':
		if err := json.Unmarshal(data, &elems); err != nil {
			return nil, fmt.Errorf("%w: %v", errCatalog, err)
		}
	case len(data) > 0 && data[0] == '{':
		var top struct {
			Result      json.RawMessage `json:"result"`
			Tools       json.RawMessage `json:"tools"`
			Server      *string         `json:"server"`
			Builtin     *string         `json:"catalog"`
			Description string          `json:"description"`
		}
		if err := json.Unmarshal(data, &top); err != nil {
			return nil, fmt.Errorf("%w: %v", errCatalog, err)
		}
		if len(top.Tools) == 0 && len(top.Result) > 0 {
			return ParseCatalog(top.Result)
		}
		if len(top.Tools) == 0 {
			var cfg struct {
				MCPServers json.RawMessage `json:"mcpServers"`
			}
			if json.Unmarshal(data, &cfg) == nil && len(cfg.MCPServers) > 0 {
				return nil, fmt.Errorf("%w: an mcpServers file lists servers to start, not tools: read it with integration/mcp.LoadConfig (toolshelf budget --mcp-config FILE)", errCatalog)
			}
			return nil, fmt.Errorf("%w: unknown shape: a JSON object needs a \"tools\" array (MCP tools/list result or catalog file)", errCatalog)
		}
		if err := json.Unmarshal(top.Tools, &elems); err != nil || elems == nil {
			return nil, fmt.Errorf("%w: \"tools\" must be an array", errCatalog)
		}
		c.Format = FormatMCP
		c.Description = top.Description
		if top.Builtin != nil && top.Server == nil {
			c.Format = formatCatalogFile // built-in tools, named as they are
		}
		if top.Server != nil {
			c.Format = formatCatalogFile
			c.Server = *top.Server
			if err := checkGroupName(c.Server); err != nil {
				return nil, fmt.Errorf("%w: %w", errCatalog, err)
			}
		}
	default:
		return nil, fmt.Errorf("%w: unknown shape: want a JSON array of tools or an object with \"tools\"", errCatalog)
	}
	group := c.Server
	if group == "" {
		group = builtinGroup
	}
	for i, e := range elems {
		t, format, err := parseTool(e)
		if err != nil {
			return nil, fmt.Errorf("%w: tool %d%s: %w", errCatalog, i, nameHint(e), err)
		}
		if c.Format == "" {
			c.Format = format
		}
		nt, err := t.normalize(0, "")
		if err != nil {
			c.Rejected = append(c.Rejected, Rejection{Group: group, Name: t.Name, Err: fmt.Errorf("tool %d: %w", i, err)})
			continue
		}
		c.Tools = append(c.Tools, nt)
	}
	return c, nil
}

// syntaxAt says where data stops being JSON: "line 3, column 14 (byte
// 52): unexpected end of JSON input", at the byte the decoder stopped on
// (the last one, for a truncated input). Lines, columns (in bytes) and the
// byte count from 1.
func syntaxAt(data []byte) string {
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) || len(data) == 0 {
		return fmt.Sprint(err)
	}
	at := int(min(max(se.Offset, 1), int64(len(data)))) - 1 // 0-based
	line := 1 + bytes.Count(data[:at], []byte("\n"))
	col := at - bytes.LastIndexByte(data[:at], '\n')
	return fmt.Sprintf("line %d, column %d (byte %d): %v", line, col, at+1, se)
}

// wireTool is the union of the tool shapes ParseCatalog accepts.
type wireTool struct {
	Type         string          `json:"type"`
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`  // MCP
	Parameters   json.RawMessage `json:"parameters"`   // OpenAI
	InputSchema2 json.RawMessage `json:"input_schema"` // Anthropic
	Function     *wireTool       `json:"function"`     // OpenAI Chat
	Annotations  *Annotations    `json:"annotations"`
	DeferLoading DeferLoading    `json:"defer_loading"`
	SearchHints  []string        `json:"search_hints"`
	Tier         Tier            `json:"tier"`
}

func parseTool(e json.RawMessage) (Tool, string, error) {
	if _, err := jsonx.Members(e); err != nil {
		return Tool{}, "", fmt.Errorf("a tool must be a JSON object: %v", err)
	}
	var w wireTool
	if err := json.Unmarshal(e, &w); err != nil {
		return Tool{}, "", err
	}
	var format string
	var schema json.RawMessage
	switch {
	case w.Function != nil:
		if w.Type != "function" {
			return Tool{}, "", fmt.Errorf("OpenAI Chat tool with type %q: only \"function\" tools can be imported", w.Type)
		}
		format, schema = formatOpenAIChat, w.Function.Parameters
		d := w.DeferLoading
		w = *w.Function
		if w.DeferLoading == DeferUnset {
			w.DeferLoading = d
		}
	case w.InputSchema != nil:
		format, schema = FormatMCP, w.InputSchema
	case w.InputSchema2 != nil:
		format, schema = formatAnthropic, w.InputSchema2
	case w.Type == "function":
		format, schema = formatOpenAIResponses, w.Parameters
	default:
		return Tool{}, "", fmt.Errorf("unknown shape: want MCP (name, inputSchema), OpenAI Chat (type function, function), OpenAI Responses (type function, name, parameters) or Anthropic (name, input_schema)")
	}
	if w.Name == "" {
		return Tool{}, "", fmt.Errorf("missing \"name\"")
	}
	if isNull(schema) {
		schema = nil
	}
	t := Tool{
		Name:         w.Name,
		Description:  w.Description,
		RawSchema:    schema,
		Annotations:  w.Annotations,
		DeferLoading: w.DeferLoading,
		SearchHints:  w.SearchHints,
		Tier:         w.Tier,
	}
	return t, format, nil
}

func isNull(b []byte) bool { return string(bytes.TrimSpace(b)) == "null" }

func nameHint(e json.RawMessage) string {
	var w struct {
		Name     string `json:"name"`
		Function *struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if json.Unmarshal(e, &w) != nil {
		return ""
	}
	if w.Name == "" && w.Function != nil {
		w.Name = w.Function.Name
	}
	if w.Name == "" {
		return ""
	}
	return fmt.Sprintf(" (%q)", clipName(w.Name))
}

// Import registers a catalog's tools. With Server set the server's group is
// added (or its settings kept when it exists) and the tools join it;
// otherwise they join the built-in group — except a bare MCP tools/list,
// which is refused (see [Catalog.Server]). A bad tool (the catalog's
// Rejected, or one that fails registration on its own: its name, its
// size, a clash) is left out: the good tools are registered, and Import
// returns an error wrapping [ErrRejected] that names the tools left out
// (all of them are listed by [Registry.Rejected] too). A harness that
// accepts a partial import writes
//
//	if err := reg.Import(c); err != nil && !errors.Is(err, registry.ErrRejected) {
//		return err
//	} else if err != nil {
//		log.Print(err) // the rest of the catalog was imported
//	}
//
// With [Options.StrictImport] a bad tool fails the import, which then
// changes nothing.
func (r *Registry) Import(c *Catalog) error {
	if c.Server == "" && c.Format == FormatMCP {
		return fmt.Errorf("%w: an MCP tools/list names no server, so its tools would join the built-in group under bare names: set Catalog.Server to the server's name (the command line's --server NAME)", ErrNoServer)
	}
	group := c.Server
	if group == "" {
		group = builtinGroup
	} else if err := checkGroupName(group); err != nil {
		return err
	}
	tools := make([]Tool, len(c.Tools))
	copy(tools, c.Tools)
	for i := range tools {
		tools[i].Group = group
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	strict := r.opts.StrictImport
	if strict && len(c.Rejected) > 0 {
		j := c.Rejected[0]
		return fmt.Errorf("registry: import of %s: tool %q: %w", describeGroupName(group), j.Name, j.Err)
	}
	_, exists := r.groups[group]
	if !exists {
		r.groups[group] = &Group{Name: group, Description: c.Description, Source: SourceMCP}
	}
	prepared, rejected, err := r.prepareSome(tools, false, !strict)
	if err != nil {
		if !exists {
			delete(r.groups, group)
		}
		return err
	}
	for _, t := range prepared {
		r.tools[t.Name] = t
	}
	all := slices.Clone(c.Rejected)
	for i := range all {
		all[i].Group = group // a bare tools/list learns its server after parsing
	}
	if all = append(all, rejected...); len(all) > 0 {
		r.rejected[group] = append(r.rejected[group], all...)
	}
	r.changed()
	return rejectedError(group, len(prepared), all)
}

// rejectedError is Import's report of the tools it left out; nil when it
// left out none.
func rejectedError(group string, imported int, rejected []Rejection) error {
	if len(rejected) == 0 {
		return nil
	}
	var b strings.Builder
	for i, j := range rejected {
		if i == 3 {
			fmt.Fprintf(&b, "; and %d more (Registry.Rejected lists them)", len(rejected)-i)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%q: %v", clipName(j.Name), j.Err)
	}
	return fmt.Errorf("%w: import of %s: %d of %d tools left out, the other %d imported: %s", ErrRejected, describeGroupName(group), len(rejected), imported+len(rejected), imported, b.String())
}

func describeGroupName(g string) string {
	if g == builtinGroup {
		return "the built-in group"
	}
	return fmt.Sprintf("MCP server %q", g)
}
