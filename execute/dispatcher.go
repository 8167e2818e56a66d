package execute

import (
	"context"
	"encoding/json"

	"github.com/toolshelf/toolshelf/registry"
)

// Options configures a [Dispatcher]. Nil means defaults.
// (Placeholder: fields are added by the execute work.)
type Options struct{}

// Dispatcher runs every tool call, direct or through defer_execute.
type Dispatcher struct{}

// New returns a dispatcher.
func New(opts *Options) (*Dispatcher, error) { return &Dispatcher{}, nil }

// Call dispatches one call of name (a direct tool, or defer_execute) in s.
func (d *Dispatcher) Call(ctx context.Context, s Session, name string, args json.RawMessage) registry.Result {
	return registry.Result{Text: "not implemented yet", IsError: true}
}
