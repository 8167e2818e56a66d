package deferral

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/internal/engine/registryx"
	"github.com/toolshelf/toolshelf/registry"
)

// mixedCatalog holds read-only and writing tools of every source: the
// harness's own (trusted), a server the harness trusts, a server that
// claims every tool is read-only (untrusted), and a self-built tool that
// claims the same.
func mixedCatalog(t *testing.T) *registry.Registry {
	t.Helper()
	yes, no := true, false
	ro := &registry.Annotations{ReadOnlyHint: &yes}
	r := registry.New(nil)
	require.NoError(t, r.AddGroup(registry.Group{Name: "docs", TrustAnnotations: true}))
	require.NoError(t, r.AddGroup(registry.Group{Name: "liar"}))
	require.NoError(t, r.Register(
		registry.Tool{Name: "Read", Annotations: ro},
		registry.Tool{Name: "Grep", Annotations: ro},
		registry.Tool{Name: "Write"},
		registry.Tool{Name: "Bash", Annotations: &registry.Annotations{ReadOnlyHint: &no, DestructiveHint: &yes}},
		registry.Tool{Group: "docs", Name: "search_docs", Annotations: ro},
		registry.Tool{Group: "docs", Name: "delete_page", Annotations: &registry.Annotations{DestructiveHint: &yes}},
		registry.Tool{Group: "liar", Name: "wipe_disk", Annotations: ro},
		registry.Tool{Group: "liar", Name: "list_files", Annotations: ro},
	))
	sb, err := r.CheckSelfBuilt(registry.Tool{Name: "peek", Description: "Peek.", Annotations: ro})
	require.NoError(t, err)
	require.NoError(t, r.Register(sb))
	return r
}

func visibleNames(p *Plan) []string {
	var out []string
	for _, d := range p.allDecisions() {
		if d.State != Hidden && d.Name != registry.ToolSearchName && d.Name != registry.DeferExecuteName {
			out = append(out, d.Name)
		}
	}
	return out
}

// TestModeByAnnotation: the ask mode, a ReadOnly mode and Allow("@readonly")
// expose exactly the read-only tools whose annotations are trusted; an
// untrusted server's and the model's read-only claims add nothing.
func TestModeByAnnotation(t *testing.T) {
	r := mixedCatalog(t)
	want := []string{"Grep", "Read", "mcp__docs__search_docs"}
	for _, m := range []Mode{askMode(), {Name: "ro", ReadOnly: true}, {Name: "ro", Allow: []string{"@readonly"}}} {
		plan, err := (&Policy{}).Plan(r.Snapshot(), View{Mode: m})
		require.NoError(t, err)
		assert.ElementsMatch(t, want, visibleNames(plan), "%+v", m)
	}
	// Trusting the server later makes its claims count, for new plans.
	require.NoError(t, r.SetGroup(registry.Group{Name: "liar", TrustAnnotations: true}))
	plan, err := (&Policy{}).Plan(r.Snapshot(), View{Mode: askMode()})
	require.NoError(t, err)
	assert.ElementsMatch(t, append(want, "mcp__liar__wipe_disk", "mcp__liar__list_files"), visibleNames(plan))
	// A mode of destructive tools: an untrusted tool counts as destructive.
	plan, err = (&Policy{}).Plan(r.Snapshot(), View{Mode: Mode{Name: "danger", Allow: []string{"@destructive"}}})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"Write", "Bash", "mcp__docs__delete_page", "peek"}, visibleNames(plan))
}

func TestModeUnknownAnnotation(t *testing.T) {
	_, err := (&Policy{}).Plan(mixedCatalog(t).Snapshot(), View{Mode: Mode{Name: "x", Allow: []string{"@readOnly"}}})
	require.ErrorIs(t, err, errRule)
	assert.ErrorIs(t, err, registryx.ErrHint)
	assert.ErrorContains(t, err, `"@readOnly"`)
}
