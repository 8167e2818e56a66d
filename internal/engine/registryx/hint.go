package registryx

import "fmt"

// Hint names one of the MCP tool annotations that permission rules
// (Ask(@destructive)), hook patterns and modes (deferral.Mode ReadOnly)
// select tools by.
type Hint uint8

// The four MCP annotation hints.
const (
	// HintReadOnly: the tool does not modify its environment (readOnlyHint).
	HintReadOnly Hint = iota + 1
	// HintDestructive: the tool may perform destructive updates
	// (destructiveHint; the MCP default for a tool that is not read-only).
	HintDestructive
	// HintIdempotent: calling the tool again with the same arguments has no
	// further effect (idempotentHint).
	HintIdempotent
	// HintOpenWorld: the tool reaches an open world of external entities,
	// such as the web (openWorldHint; the MCP default).
	HintOpenWorld
)

var hintNames = [...]string{HintReadOnly: "readonly", HintDestructive: "destructive", HintIdempotent: "idempotent", HintOpenWorld: "openworld"}

// String returns the hint's name as rules write it after "@": "readonly".
func (h Hint) String() string {
	if int(h) < len(hintNames) && hintNames[h] != "" {
		return hintNames[h]
	}
	return fmt.Sprintf("Hint(%d)", uint8(h))
}

// ParseHint parses a hint name: "readonly", "destructive", "idempotent" or
// "openworld" (exactly, lower case). Anything else is an error wrapping
// [ErrHint].
func ParseHint(name string) (Hint, error) {
	for h, n := range hintNames {
		if n != "" && n == name {
			return Hint(h), nil
		}
	}
	if len(name) > 40 {
		name = name[:40]
	}
	return 0, fmt.Errorf("%w %q: want readonly, destructive, idempotent or openworld", ErrHint, name)
}
