package request

import (
	"encoding/json"
	"slices"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/render"
)

// This file sends the live set's changes in the provider's native form
// as well ([Config.NativeToolChanges], issue 44): the announcements stay,
// and the user message that carries them also carries the change as
// native parts that its encoder sends right after it — Anthropic: one
// {"role":"system"} message of tool_addition blocks (the definition
// inline) and tool_removal blocks (by reference); Responses: one
// additional_tools input item (role developer) with the function
// definitions. The parts are history like any message, so the send check
// and stored state keep them byte for byte. A tool so added is loaded:
// the model called directly by its name, the dispatcher governs the call
// as it governs defer_execute's.

// roleNativeAfter is the history's last role after a user message with
// native parts: a message after it opens a new message instead of
// joining the user's (Anthropic joins user-side neighbours).
const roleNativeAfter Role = "user+native"

// Beta names of the Anthropic forms ([Session.NativeBetas]).
const (
	betaToolChanges = "mid-conversation-tool-changes-2026-07-01"
	betaInlineTools = "inline-tools-2026-09-15"
)

// nativeChanges is a provider's native form of a live-set change.
type nativeChanges struct {
	// parts renders added tools (their definitions), tools of tools[]
	// added again (by reference) and removed names as the native parts of
	// the user message that carries the change.
	parts func(added []frozenTool, readded, removed []string) []json.RawMessage
	// views: a view change's withdrawals and returns of tools[] entries
	// are sent natively too (Anthropic; OpenAI narrows with allowed_tools).
	views bool
	// betas are the beta names the form needs, in the order sent.
	betas []string
}

var anthropicChanges = &nativeChanges{
	parts: func(added []frozenTool, readded, removed []string) []json.RawMessage {
		var out []json.RawMessage
		for _, n := range removed {
			b := append([]byte(`{"type":"tool_removal","tool":{"type":"tool_reference","name":`), jsonx.AppendString(nil, n)...)
			out = append(out, append(b, "}}"...))
		}
		for _, n := range readded {
			b := append([]byte(`{"type":"tool_addition","tool":{"type":"tool_reference","name":`), jsonx.AppendString(nil, n)...)
			out = append(out, append(b, "}}"...))
		}
		for i := range added {
			t := &added[i]
			b := append([]byte(`{"type":"tool_addition","tool":{"type":"tool_definition","definition":{"name":`), jsonx.AppendString(nil, t.Name)...)
			b = append(b, `,"description":`...)
			b = jsonx.AppendString(b, t.Description)
			b = append(b, `,"input_schema":`...)
			b = append(b, t.Schema...)
			out = append(out, append(b, "}}}"...))
		}
		return out
	},
	betas: []string{betaToolChanges, betaInlineTools},
	views: true,
}

var responsesChanges = &nativeChanges{
	// The Responses API has no removal item: a removed tool is told by
	// the announcement and refused by the dispatcher.
	parts: func(added []frozenTool, _, _ []string) []json.RawMessage {
		if len(added) == 0 {
			return nil
		}
		b := []byte(`{"type":"additional_tools","role":"developer","tools":[`)
		for i := range added {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(appendResponsesFunction(b, &added[i]), '}')
		}
		return []json.RawMessage{append(b, "]}"...)}
	},
}

// nativeForm returns the session's native form of live-set changes, or
// nil when [Config.NativeToolChanges] is off or the provider has none.
func (s *Session) nativeForm() *nativeChanges {
	if !s.cfg.NativeToolChanges {
		return nil
	}
	return s.hist.enc.traits().changes
}

// NativeBetas returns the provider beta names that the session's requests
// need, to be sent with them (Anthropic's anthropic-beta header): those of
// the native tool changes with [Config.NativeToolChanges] on Anthropic,
// else none.
func (s *Session) NativeBetas() []string {
	if f := s.nativeForm(); f != nil {
		return slices.Clone(f.betas)
	}
	return nil
}

// nativeParts renders the native form of the pending announcements'
// live-set changes: the tools that arrived, came back, were updated or
// were self-built, and the tools that left. It returns the parts and the
// names of the tools it adds, which are loaded once sent. s.mu must be
// held.
func (s *Session) nativeParts() ([]json.RawMessage, []string) {
	f := s.nativeForm()
	if f == nil {
		return nil, nil
	}
	var add, drop, upd, back, withdrawn []string
	for _, n := range s.notes {
		switch d := n.data; {
		case d.View != nil && f.views:
			// A view change: tools[] entries it withdraws are removed,
			// those it gives back added again, by reference.
			withdrawn = append(withdrawn, d.View.Withdrawn...)
			back = append(back, d.View.Direct...)
		case d.SelfBuilt != "":
			add = append(add, d.SelfBuilt)
		case d.Live != nil:
			add = append(add, d.Live.Arrived...)
			add = append(add, d.Live.Back...)
			add = append(add, d.Live.Updated...)
			drop = append(drop, d.Live.Left...)
			upd = append(upd, d.Live.Updated...)
		}
	}
	slices.Sort(add)
	slices.Sort(drop)
	add, drop = slices.Compact(add), slices.Compact(drop)
	var removed, readded []string
	for _, n := range withdrawn {
		if s.frozen.carries(n) {
			removed = append(removed, n)
		}
	}
	for _, n := range back {
		if s.frozen.carries(n) {
			readded = append(readded, n)
		}
	}
	for _, n := range drop {
		// Only a name the provider knows is removed by reference: a tool
		// of tools[], or one that arrived (added natively when it came).
		if _, frozen := s.cfg.Snapshot.Tool(n); s.frozen.carries(n) || !frozen {
			removed = append(removed, n)
		}
	}
	var added []frozenTool
	var names []string
	vars := render.Vars{Static: s.cfg.StaticVars, Session: s.cfg.SessionVars}
	for _, n := range add {
		t, ok := s.shownTool(n)
		if !ok || s.frozen.carries(n) {
			continue
		}
		if _, _, st := s.see(n); st != standingShown {
			continue
		}
		added = append(added, s.nativeTool(t, vars))
		names = append(names, n)
		// An updated tool that arrived was added natively before: it is
		// withdrawn, then added with its new definition.
		if _, frozen := s.cfg.Snapshot.Tool(n); !frozen && slices.Contains(upd, n) {
			removed = append(removed, n)
		}
	}
	slices.Sort(removed)
	removed = slices.Compact(removed)
	if capsDescriptions(s.cfg.Provider) {
		capDescriptions(added, true)
	}
	return f.parts(added, readded, removed), names
}

// nativeTool returns t's definition as tools[] would carry it.
func (s *Session) nativeTool(t *registry.Tool, vars render.Vars) frozenTool {
	d, err := render.Description(t, vars)
	if err != nil {
		d = t.Description
	}
	return frozenTool{Name: t.Name, Description: d, Schema: s.hist.enc.toolSchema(jsonx.AppendCompact(nil, t.ModelSchema()))}
}
