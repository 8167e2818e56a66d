package request

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error of this package wraps one of them; the
// message names what is wrong and where (the message index, the call id,
// the field).
var (
	// ErrConfig reports an invalid session configuration: unknown
	// provider, missing model, a bad extra field or variable.
	ErrConfig = errors.New("request: invalid session config")
	// ErrUnknownProvider reports a provider name the encoders do not know.
	ErrUnknownProvider = errors.New("request: unknown provider")
	// ErrInvalidMessage reports a malformed message (invalid UTF-8, empty
	// text, arguments that are not a JSON object) or a message sequence
	// the provider would reject (roles out of order, a tool result
	// without its call, a call without its result).
	ErrInvalidMessage = errors.New("request: invalid message")
	// ErrState reports session state that cannot be restored.
	ErrState = errors.New("request: invalid session state")
)

var (
	// errTooManyTools reports a configuration whose tools[] would hold
	// more tools than the provider accepts (OpenAI Chat Completions: 128);
	// it comes wrapped with ErrConfig. Deferring more tools fixes it.
	errTooManyTools = errors.New("request: too many tools")
	// errSequence reports a message sequence the provider would reject:
	// roles out of order, a tool result without its call, a call without
	// its result. It wraps ErrInvalidMessage.
	errSequence = fmt.Errorf("%w sequence", ErrInvalidMessage)
)
