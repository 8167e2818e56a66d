// Package execute owns the defer_execute tool and the one dispatcher every
// tool call goes through, direct or deferred: lookup and visibility → loaded?
// → schema validation → permission → hooks → handler.
//
// It never lets a wrapper name hide the target from a guard: permission rules
// and hooks always see the target tool's name.
package execute
