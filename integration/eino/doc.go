// Package eino puts a toolshelf session behind eino's tool layer
// (github.com/cloudwego/eino): the session's tools — resident tools,
// tool_search with its name index, defer_execute — become eino tools, every
// call of the model goes to [request.Session.Call] (the dispatcher's
// validation, permission rules and hooks, tool_search included), and a
// ChatModelAgent middleware keeps the tool list eino sends the model fixed
// for the session.
//
// eino's own toolsearch middleware (adk/middlewares/dynamictool/toolsearch)
// hides its dynamic tools and adds each one to the list once tool_search
// finds it: the tool list, and with it the cached prefix of every provider,
// changes on the turn after each search (its Config.UseModelToolSearch
// comment says so). With this package the list is the session's frozen one
// on every model call: a deferred tool is loaded by tool_search's answer and
// called through defer_execute, and the list does not move.
//
//	a, err := eino.New(session) // any of the three encoders, Portable search
//	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
//		Name: "assistant", Description: "…", Model: chatModel,
//		ToolsConfig: a.ToolsConfig(),                        // the session's tools; other names go to Session.Call too
//		Handlers:    []adk.ChatModelAgentMiddleware{a.Middleware()}, // last: it has the final word on the tool list
//	})
//
// The agent's Instruction is the session's system text ([Adapter.Middleware]
// sets it when the agent's is empty): with the OpenAI encoders the name index
// rides there. A result the dispatcher marks as an error reaches the model
// as its text (eino's tool messages carry no error flag), never as a Go
// error, so a refused call does not end the agent's run.
package eino
