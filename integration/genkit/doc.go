// Package genkit puts a toolshelf session behind genkit Go's middleware
// hooks (github.com/firebase/genkit/go, ai.WithUse): the hooks add the
// session's tools — resident tools, tool_search with its name index,
// defer_execute — to the generation, every call of them goes to
// [request.Session.Call] (the dispatcher's validation, permission rules and
// hooks) with the model's call reference, and every model call of genkit's
// generate loop is sent the session's frozen tool list and system text.
//
//	a, err := genkit.New(session) // any of the three encoders, Portable search
//	resp, err := gk.Generate(ctx, g, ai.WithModel(m), ai.WithPrompt(question), ai.WithUse(a.Middleware()))
//
// Why the middleware owns the list: genkit builds a request's tool
// definitions by ranging over a Go map (ai.GenerateWithRequest, v1.12.0), so
// their order changes from one Generate call to the next, and with it the
// bytes of the provider's cached prefix. The model hook replaces them with
// the session's list, in the session's order, every time. It also puts the
// session's system text first (genkit's ai.WithSystem formats its text with
// fmt.Sprintf, which would rewrite a '%' in it): leave WithSystem out. A
// system message is handled one way wherever it is: first and equal to the
// session's system text it is kept; anywhere else, or with another text,
// the model call is refused with an error saying to move it into
// request.Config.System or send it as a user message. A system message
// never reaches the model beside the session's.
//
// The tools are registered in genkit without an input schema, so genkit
// neither coerces nor validates arguments: the dispatcher validates them
// and a bad call answers the model with how to fix it, where genkit's own
// validation would end the Generate call with an error. What the model sees
// as each tool's schema is the session's, set by the model hook. Results
// marked as errors reach the model as their text (genkit's tool responses
// carry no error flag). A call of a name outside the session's list (a
// deferred tool called directly) is refused by genkit itself ("tool not
// found") before any hook sees it.
package genkit
