package render

import (
	"errors"
	"fmt"
	"strings"
)

// ErrTemplate matches every error of a failed render, and of a bad
// variable declaration (Config.StaticVars or SessionVars with a forbidden
// name, or a name declared in both): errors.Is(err, render.ErrTemplate).
// What failed — a forbidden function or variable, an undeclared variable,
// an unknown part or section, a template that does not parse or execute —
// is in the message and, for a render, in the [*Error].
var ErrTemplate = errors.New("render: template error")

// Error is a failed render. Its message names the tool, the template line
// and the function or variable at fault, and says how to fix the template.
type Error struct {
	// Tool is the tool whose description failed to render.
	Tool string
	// Line is the 1-based template line, 0 when unknown.
	Line int
	// Name is the function or variable at fault, if any.
	Name string
	// Err is what failed ("render: forbidden function", "render: undeclared
	// variable" ... or ErrTemplate itself); it matches [ErrTemplate].
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

// Unwrap returns what failed, Err.
func (e *Error) Unwrap() error { return e.Err }

// kind is what failed in a render, more precisely than ErrTemplate, which
// every kind matches: a harness matches ErrTemplate and reads the message;
// this package's tests match the kind.
type kind string

func (k kind) Error() string { return string(k) }

// Is reports that every kind is a [ErrTemplate].
func (k kind) Is(target error) bool { return target == ErrTemplate }

// The kinds. Every error of a failed render is an [*Error] whose Err is
// one of them or ErrTemplate.
var (
	// errForbiddenFunction reports a call of a non-deterministic function
	// (time, random, uuid, fs, exec, http, env).
	errForbiddenFunction error = kind("render: forbidden function")
	// errForbiddenVariable reports the use of a per-turn or random variable.
	errForbiddenVariable error = kind("render: forbidden variable")
	// errUndeclaredVariable reports a variable declared in no tier.
	errUndeclaredVariable error = kind("render: undeclared variable")
	// errUnknownPart reports a part or section name that does not exist.
	errUnknownPart error = kind("render: unknown part")
	// errVariables reports a bad variable declaration: a session variable
	// with a forbidden name, or one declared in two tiers. It is not an
	// [*Error]: no tool and no line are at fault.
	errVariables error = kind("render: invalid variables")
)
