// Package render is the pure rendering channel for built-in tool
// descriptions. A description with [registry.Tool.Template] set is a Go
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
// Variables come in three tiers (see [Vars]): static values from the tool or
// package, session values declared when a session is created (working
// directory, OS, locale, the session's date ...), and a forbidden list of
// per-turn or random values (now, turn_id, request_id, nonce, uuid ...)
// whose use is an error, naming the variable and why. A
// variable that is declared nowhere is an error too.
//
// A session renders once, when it is created, and freezes the result ([Description]
// gives one tool's description): zero renders per turn. The package never
// writes back into a tool definition; definitions stay plain, comparable data.
//
// API: [Description] is what request calls for each tool at session
// creation; [Render] renders one template without a tool, for a harness that
// previews or lints its own descriptions. [Vars] declares the variables, and
// [Error] with its sentinels (every message starts with "render:") tells a
// harness author which template line to fix. Nothing else is exported.
package render
