package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/toolshelf/toolshelf/registry"
)

// targetParam is the parameter a folded tool takes to name its server.
const targetParam = "target"

// foldTwins replaces, in groups, the members of each Twins line that list
// the same tools (names, descriptions, schemas, annotations) with one group
// named after the line: each tool once, with a required "target" naming
// the member to call, routed there. Members whose tools differ are served
// apart, and the gateway says why once per change.
func (g *gateway) foldTwins(groups map[string]servedGroup) {
	for _, ts := range g.rules.twins {
		var present []string
		for _, m := range ts.members {
			if sg, ok := groups[m]; ok && len(sg.tools) > 0 {
				present = append(present, m)
			}
		}
		if len(present) == 0 {
			continue
		}
		folded, why := g.fold(ts, present, groups)
		if why != "" {
			if g.twinWhy[ts.name] != why {
				g.logf("twins %s not folded: %s; their servers are served apart", ts.name, why)
			}
			g.twinWhy[ts.name] = why
			continue
		}
		delete(g.twinWhy, ts.name)
		for _, m := range present {
			delete(groups, m)
		}
		groups[ts.name] = folded
	}
}

// fold builds the folded group of ts from its present members, or says why
// they cannot be folded.
func (g *gateway) fold(ts twinSet, present []string, groups map[string]servedGroup) (servedGroup, string) {
	if _, clash := groups[ts.name]; clash && !slices.Contains(present, ts.name) {
		return servedGroup{}, fmt.Sprintf("a server is named %s too", ts.name)
	}
	first := groups[present[0]]
	sig := toolSet(first.tools)
	for _, m := range present[1:] {
		if toolSet(groups[m].tools) != sig {
			return servedGroup{}, fmt.Sprintf("%s and %s list different tools", present[0], m)
		}
	}
	out := servedGroup{group: first.group}
	out.group.Name = ts.name
	out.group.Description = fmt.Sprintf("%s (one tool set on %d servers: pass %q, one of %s)", first.group.Description, len(present), targetParam, strings.Join(present, ", "))
	for _, t := range first.tools {
		schema, err := withTarget(t.RawSchema, present)
		if err != nil {
			return servedGroup{}, fmt.Sprintf("tool %s: %v", t.Name, err)
		}
		c := t
		c.RawSchema, c.InputSchema = schema, nil
		c.Description = t.Description + " (on the server named by " + targetParam + ")"
		c.Handler = g.twinHandler(t.Name)
		out.tools = append(out.tools, c)
	}
	return out, ""
}

// toolSet is a group's tools as one comparable string: each tool's name
// and definition, in order.
func toolSet(tools []registry.Tool) string {
	var b strings.Builder
	for i := range tools {
		b.WriteString(tools[i].Name)
		b.WriteByte(0)
		b.Write(tools[i].CanonicalDefinition())
		b.WriteByte(0)
	}
	return b.String()
}

// withTarget adds the required target parameter, an enum of the servers,
// to an object schema.
func withTarget(raw json.RawMessage, targets []string) (json.RawMessage, error) {
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	props, _ := s["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	if _, taken := props[targetParam]; taken {
		return nil, fmt.Errorf("it has a parameter named %s already", targetParam)
	}
	props[targetParam] = map[string]any{"type": "string", "enum": targets, "description": "The server to call: " + strings.Join(targets, ", ") + "."}
	s["properties"] = props
	req, _ := s["required"].([]any)
	s["required"] = append(req, targetParam)
	return json.Marshal(s)
}

// twinHandler routes a call of a folded tool to the server its target
// names, without the target parameter.
func (g *gateway) twinHandler(tool string) registry.Handler {
	return func(ctx context.Context, params json.RawMessage) (registry.Result, error) {
		var args map[string]json.RawMessage
		if err := json.Unmarshal(params, &args); err != nil {
			return registry.Result{Text: "The arguments are not a JSON object: " + err.Error(), IsError: true}, nil
		}
		var target string
		_ = json.Unmarshal(args[targetParam], &target)
		delete(args, targetParam)
		rest, err := json.Marshal(args)
		if err != nil {
			return registry.Result{}, err
		}
		name := "mcp__" + target + "__" + tool
		t, ok := g.up.Snapshot().Tool(name)
		if _, held := g.pins.quarantined(name); !ok || held || t.Handler == nil {
			return registry.Result{Text: fmt.Sprintf("Server %s does not offer %s now; call it with another target.", target, tool), IsError: true}, nil
		}
		return t.Handler(ctx, rest)
	}
}
