package render

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Every error of a failed render is an [*Error] wrapping
// one of them, so callers match with [errors.Is].
var (
	// ErrForbiddenFunction reports a call of a non-deterministic function
	// (time, random, uuid, fs, exec, http, env).
	ErrForbiddenFunction = errors.New("render: forbidden function")
	// ErrForbiddenVariable reports the use of a per-turn or random variable.
	ErrForbiddenVariable = errors.New("render: forbidden variable")
	// ErrUndeclaredVariable reports a variable declared in no tier.
	ErrUndeclaredVariable = errors.New("render: undeclared variable")
	// ErrUnknownPart reports a part or section name that does not exist.
	ErrUnknownPart = errors.New("render: unknown part")
	// ErrTemplate reports a template that does not parse or execute.
	ErrTemplate = errors.New("render: template error")
	// ErrVariables reports a bad variable declaration: a session variable
	// with a forbidden name, or one declared in two tiers.
	ErrVariables = errors.New("render: invalid variables")
)

// Error is a failed render. Its message names the tool, the template line
// and the function or variable at fault, and says how to fix the template.
type Error struct {
	// Tool is the tool whose description failed to render.
	Tool string
	// Line is the 1-based template line, 0 when unknown.
	Line int
	// Name is the function or variable at fault, if any.
	Name string
	// Err is the sentinel (or the underlying template error).
	Err error
	// Hint says how to fix it.
	Hint string
}

func (e *Error) Error() string {
	msg := "render: tool " + fmt.Sprintf("%q", e.Tool)
	if e.Line > 0 {
		msg += fmt.Sprintf(", line %d", e.Line)
	}
	// The sentinels carry the package prefix, which msg already has.
	msg += ": " + strings.TrimPrefix(e.Err.Error(), "render: ")
	if e.Name != "" {
		msg += fmt.Sprintf(" %q", e.Name)
	}
	if e.Hint != "" {
		msg += ": " + e.Hint
	}
	return msg
}

// Unwrap returns the sentinel.
func (e *Error) Unwrap() error { return e.Err }
