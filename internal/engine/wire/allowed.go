package wire

import (
	"encoding/json"
	"fmt"
)

// The native narrowing of tools[] a view change sends after the messages
// (issue 44): every name it allows must be a tool the body declares.
func init() {
	for _, ps := range [][2]string{{OpenAIChat, "https://platform.openai.com/docs/api-reference/chat/create"}, {OpenAIResponses, "https://platform.openai.com/docs/api-reference/responses/create"}} {
		p, src := ps[0], ps[1]
		rules = append(rules, Rule{"allowed-tools", p, "tool_choice.allowed_tools", "each allowed tool is a tools[] entry",
			"A list of tool definitions that the model should be allowed to call.",
			src,
			"Session.SetView narrows tools[] with the names of its own tools[] entries the new view allows, built once per view change."})
	}
	rules = append(rules, Rule{"allowed-tools", Gemini, "toolConfig.functionCallingConfig.allowedFunctionNames", "each name a functionDeclarations name; mode ANY or VALIDATED",
		"Function names should match [FunctionDeclaration.name]. … This should only be set when the Mode is ANY or VALIDATED.",
		"https://hexdocs.pm/geminix/Geminix.V1beta.FunctionCallingConfig.html",
		"Session.SetView narrows tools[] with mode VALIDATED (a call or text), never ANY (which forces a call every turn)."})
}

// allowedTools checks the names a tool_choice of type allowed_tools (Chat
// Completions: under "allowed_tools"; Responses: flat) or Gemini's
// allowedFunctionNames lists against declared, the tools[] names.
func (c *checker) allowedTools(req map[string]json.RawMessage, declared map[string]bool) {
	if c.provider == Gemini {
		fc := object(object(req["toolConfig"])["functionCallingConfig"])
		names := c.array(fc["allowedFunctionNames"], "toolConfig.functionCallingConfig.allowedFunctionNames")
		if len(names) == 0 {
			return
		}
		if mode, _ := str(fc["mode"]); mode != "ANY" && mode != "VALIDATED" {
			c.add("allowed-tools", "toolConfig.functionCallingConfig.mode", "allowedFunctionNames with mode %.20q: only ANY or VALIDATED", mode)
		}
		for i, n := range names {
			if s, _ := str(n); !declared[s] {
				c.add("allowed-tools", fmt.Sprintf("toolConfig.functionCallingConfig.allowedFunctionNames[%d]", i), "%.80q is not a declared function", s)
			}
		}
		return
	}
	tc := object(req["tool_choice"])
	if t, _ := str(tc["type"]); t != "allowed_tools" {
		return
	}
	at, list := "tool_choice.tools", tc["tools"]
	if c.provider == OpenAIChat {
		at, list = "tool_choice.allowed_tools.tools", object(tc["allowed_tools"])["tools"]
	}
	for i, e := range c.array(list, at) {
		m := object(e)
		if t, _ := str(m["type"]); t != "function" {
			continue // a hosted tool (tool_search), named by its type
		}
		name, _ := str(m["name"])
		if c.provider == OpenAIChat {
			name, _ = str(object(m["function"])["name"])
		}
		if !declared[name] {
			c.add("allowed-tools", fmt.Sprintf("%s[%d]", at, i), "%.80q is not a tools[] entry", name)
		}
	}
}

// declaredNames returns the function names body declares in tools[].
func declaredNames(p string, req map[string]json.RawMessage) map[string]bool {
	out := map[string]bool{}
	for _, tr := range (&checker{}).array(req["tools"], "tools") {
		t := object(tr)
		switch p {
		case Gemini:
			for _, fr := range (&checker{}).array(t["functionDeclarations"], "") {
				n, _ := str(object(fr)["name"])
				out[n] = true
			}
		case OpenAIChat:
			n, _ := str(object(t["function"])["name"])
			out[n] = true
		default:
			n, _ := str(t["name"])
			out[n] = true
		}
	}
	return out
}
