// Package render is the pure rendering channel for built-in tool
// descriptions. A description with registry.Tool's Template set is a Go
// text/template; everything else is literal text and is never parsed.
//
// Rendering is pure: the same template and variables give the same bytes in
// every process. Templates may call only the pure helpers part, tag, raw,
// join, has and render_section. Everything that would make the output
// depend on the moment or the machine — now, date, random, uuid, read_file,
// exec, http_get, env and their kin — is present as a stub that fails the
// render with an error naming the tool, the template line and the function.
// A stub never returns a zero value: a silent zero would produce a wrong
// description instead of a loud error.
//
// Variables come in three tiers: static values from the harness
// (request.Config.StaticVars), session values declared when a session is
// created (request.Config.SessionVars: working directory, OS, locale, the
// session's date ...), and a forbidden list of
// per-turn or random values (now, turn_id, request_id, nonce, uuid ...)
// whose use is an error, naming the variable and why. A
// variable that is declared nowhere is an error too.
//
// A session renders once, when it is created, and freezes the result: zero
// renders per turn. The package never writes back into a tool definition;
// definitions stay plain, comparable data.
//
// API: a harness writes templates (registry.Tool.Template and Description)
// and their variables (request.Config.StaticVars and SessionVars); request
// renders them in request.NewSession with [Description], which returns a
// failed render's [*Error] — naming the tool, the template line and the
// function or variable to fix — and every failure matches [ErrTemplate]
// (messages start with "render:"). A harness checks a template before any
// session freezes it by calling [Description] itself with the [Vars] its
// Config will declare ([Vars.Check] checks the declaration alone). The
// engine is this package itself.
package render
