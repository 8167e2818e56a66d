// Package render is the engine behind package render
// (github.com/toolshelf/toolshelf/render), whose doc describes the template
// channel a harness writes to. Package request calls [Description] for each
// tool and [Vars.Check] on a config's variables when it freezes a session;
// budget's tests call [Render] on the tool_search description. A failed
// render is the public render.Error, and every error matches the public
// render.ErrTemplate; the finer kinds ([ErrForbiddenFunction] ...) are for
// this package's tests.
package render
