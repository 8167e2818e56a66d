package toolname

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCallIDAlias: the alias of any id passes every provider's rule, is a
// pure function of the id, and tells apart ids that read alike.
func TestCallIDAlias(t *testing.T) {
	ids := []string{"a.b", "a|b", "a_b", "functions.Bash:0", "call_abc|fc_def", strings.Repeat("x", 200), "日本語", "\x00", " "}
	seen := map[string]string{}
	for _, id := range ids {
		a := CallIDAlias(id)
		assert.Equal(t, a, CallIDAlias(id), "deterministic")
		assert.True(t, ChatCallIDOK(a) && ResponsesCallIDOK(a) && AnthropicCallIDOK(a), "%q -> %q", id, a)
		assert.LessOrEqual(t, len(a), MaxChatCallID)
		if prev, ok := seen[a]; ok {
			t.Errorf("%q and %q share alias %q", prev, id, a)
		}
		seen[a] = id
	}
	assert.Equal(t, "functions_Bash_0_", CallIDAlias("functions.Bash:0")[:17], "the readable part keeps the id's characters")
}
