package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/toolshelf/toolshelf/budget"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/integration/mcp"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

type budgetOptions struct {
	stdio, url        string
	name, description string
	defaultMode       string
	window            int
	encoding          string
	json              bool
	catalogOut        string
	timeout           time.Duration
}

func budgetCmd(ctx context.Context, o budgetOptions, stdout, stderr io.Writer) error {
	srv := mcp.Server{Name: o.name, Description: o.description, Stderr: io.Discard}
	switch {
	case o.stdio != "" && o.url != "":
		return fmt.Errorf("%w: give --mcp-stdio or --mcp-http, not both", errUsage)
	case o.stdio != "":
		argv, err := mcp.SplitCommand(o.stdio)
		if err != nil {
			return err
		}
		srv.Command = argv
	case o.url != "":
		srv.URL = o.url
	default:
		return errUsage
	}
	policy := deferral.Policy{Window: o.window}
	switch o.defaultMode {
	case "defer":
		policy.Default = deferral.DefaultDefer
	case "resident":
		policy.Default = deferral.DefaultResident
	case "auto":
		policy.Default = deferral.DefaultAuto
	default:
		return fmt.Errorf("%w: --default %q: want defer, resident or auto", errUsage, o.defaultMode)
	}
	enc, err := budget.ParseEncoding(o.encoding)
	if err != nil {
		return err
	}
	counter, err := budget.NewCounter(enc)
	if err != nil {
		return err
	}

	reg := registry.New(nil)
	m := mcp.New(reg, nil)
	defer m.Close()
	if err := m.Connect(ctx, srv); err != nil {
		return err
	}
	snap := reg.Snapshot()
	if o.catalogOut != "" {
		if err := writeCatalog(o.catalogOut, snap, o.name); err != nil {
			return err
		}
	}
	plan, err := policy.Plan(snap, deferral.View{})
	if err != nil {
		return err
	}
	opts := &budget.AccountOptions{Counter: counter}
	// The index is counted once, as Index: request.EntryTools renders the
	// tool_search description without it.
	if opts.Entry, opts.Index, err = request.EntryTools(plan, nil); err != nil {
		return err
	}
	acct, err := budget.NewAccount(plan, opts)
	if err != nil {
		return err
	}
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(struct {
			Server  string          `json:"server"`
			Group   string          `json:"group_description"`
			Tools   int             `json:"tools"`
			Account *budget.Account `json:"account"`
		}{o.name, groupDescription(snap, o.name), snap.Len(), acct})
	}
	printAccount(stdout, o.name, acct)
	return nil
}

func groupDescription(snap *registry.Snapshot, name string) string {
	if g, ok := snap.Group(name); ok {
		return g.Description
	}
	return ""
}

func printAccount(w io.Writer, server string, a *budget.Account) {
	t := a.Tokens
	est := ""
	if t.Estimate {
		est = " (estimated)"
	}
	th := budget.Thousands
	fmt.Fprintf(w, "MCP server %q: %d tools, %s chars of definitions (%s tokens %s%s)\n", server, a.ToolsTotal, th(a.CharsTotal), th(t.All), t.Encoding, est)
	fmt.Fprintf(w, "deferred:  %d tools, %s chars (%.1f%%)\n", a.DeferredCount, th(a.DeferredChars), 100*a.DeferredShare)
	fmt.Fprintf(w, "resident:  %d tools, %s chars; with tool_search and defer_execute %s chars\n", a.ResidentCount, th(a.ResidentChars), th(a.ResidentWithEntry))
	fmt.Fprintf(w, "index:     %s chars replace the deferred definitions (%s tokens)\n", th(a.IndexChars), th(t.Index))
	fmt.Fprintf(w, "saved per turn: %s chars (%s tokens); after paying for the entry tools: %s chars (%s tokens)\n",
		th(a.NetSaving), th(t.NetSaving), th(a.NetSavingAfterEntry), th(t.NetSavingAfterEntry))
	if a.LongestName != "" {
		fmt.Fprintf(w, "largest deferred tool: %s, %s chars (%.1f%% of deferred)\n", a.LongestName, th(a.LongestChars), 100*a.LongestShare)
	}
}

// writeCatalog writes the server's tools as a catalog file
// ({"server","description","tools":[MCP tools]}), the form
// registry.LoadCatalog reads.
func writeCatalog(path string, snap *registry.Snapshot, server string) error {
	type wireTool struct {
		Name        string                `json:"name"`
		Description string                `json:"description,omitempty"`
		InputSchema json.RawMessage       `json:"inputSchema"`
		Annotations *registry.Annotations `json:"annotations,omitempty"`
	}
	out := struct {
		Server      string     `json:"server"`
		Description string     `json:"description,omitempty"`
		Tools       []wireTool `json:"tools"`
	}{Server: server, Description: groupDescription(snap, server), Tools: []wireTool{}}
	for _, t := range snap.Tools() {
		if t.Group == server {
			out.Tools = append(out.Tools, wireTool{t.OriginalName, t.Description, t.RawSchema, t.Annotations})
		}
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
