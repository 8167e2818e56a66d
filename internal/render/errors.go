package render

import (
	pub "github.com/toolshelf/toolshelf/render"
)

// Error is a failed render: package render's [pub.Error], which a harness
// matches with errors.As.
type Error = pub.Error

// ErrTemplate is package render's [pub.ErrTemplate]: every error of this
// package matches it. As an Error's Err it reports a template that does not
// parse or execute.
var ErrTemplate = pub.ErrTemplate

// kind is what failed in a render, more precisely than ErrTemplate, which
// every kind matches: a harness matches ErrTemplate and reads the message;
// this package's tests match the kind.
type kind string

func (k kind) Error() string { return string(k) }

// Is reports that every kind is a [pub.ErrTemplate].
func (k kind) Is(target error) bool { return target == pub.ErrTemplate }

// The kinds. Every error of a failed render is an [*Error] whose Err is
// one of them or ErrTemplate.
var (
	// ErrForbiddenFunction reports a call of a non-deterministic function
	// (time, random, uuid, fs, exec, http, env).
	ErrForbiddenFunction error = kind("render: forbidden function")
	// ErrForbiddenVariable reports the use of a per-turn or random variable.
	ErrForbiddenVariable error = kind("render: forbidden variable")
	// ErrUndeclaredVariable reports a variable declared in no tier.
	ErrUndeclaredVariable error = kind("render: undeclared variable")
	// ErrUnknownPart reports a part or section name that does not exist.
	ErrUnknownPart error = kind("render: unknown part")
	// ErrVariables reports a bad variable declaration: a session variable
	// with a forbidden name, or one declared in two tiers. It is not an
	// [*Error]: no tool and no line are at fault.
	ErrVariables error = kind("render: invalid variables")
)
