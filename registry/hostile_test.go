package registry

import (
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostileSchemas are the schemas of issue 11 that registration accepted and
// a call then crashed on (cycles) or blamed the model for (the rest).
var hostileSchemas = map[string]struct{ schema, want string }{
	"root $ref":          {`{"type":"object","$ref":"#"}`, "recurse forever"},
	"allOf root":         {`{"type":"object","allOf":[{"$ref":"#"}]}`, "recurse forever"},
	"property a->b->a":   {`{"type":"object","properties":{"a":{"$ref":"#/properties/b"},"b":{"$ref":"#/properties/a"}}}`, "recurse forever"},
	"2,000 nested not":   {`{"type":"object","properties":{"a":` + strings.Repeat(`{"not":`, 2000) + `{}` + strings.Repeat(`}`, 2000) + `}}`, "deeper than 64"},
	"non-object schema":  {`[1]`, "must be a JSON object"},
	"string schema type": {`{"type":"string"}`, `type must be "object"`},
}

func TestHostileSchemasRejectedAtEveryEntry(t *testing.T) {
	for name, tc := range hostileSchemas {
		t.Run(name, func(t *testing.T) {
			check := func(t *testing.T, err error) {
				t.Helper()
				require.ErrorIs(t, err, errInvalidSchema)
				assert.Contains(t, err.Error(), `tool "`)
				assert.Contains(t, err.Error(), tc.want)
			}
			raw := []byte(tc.schema)
			t.Run("Register", func(t *testing.T) {
				r := New(nil)
				check(t, r.Register(Tool{Name: "bad", RawSchema: raw}))
				assert.Zero(t, len(r.Snapshot().Tools()))
			})
			t.Run("RegisterSelfBuilt", func(t *testing.T) {
				r := New(&Options{MaxSelfBuiltSchema: 1 << 20})
				check(t, r.Register(Tool{Group: selfBuiltGroup, Name: "bad", RawSchema: raw}))
			})
			t.Run("ReplaceGroup", func(t *testing.T) {
				r := New(nil)
				require.NoError(t, r.ReplaceGroup(Group{Name: "srv"}, []Tool{{Name: "bad", RawSchema: raw}, {Name: "good"}}))
				assert.Equal(t, []string{"mcp__srv__good"}, names(r.Snapshot()))
				rej := r.Rejected()
				require.Len(t, rej, 1)
				assert.Equal(t, Rejection{Group: "srv", Name: "bad", Err: rej[0].Err}, rej[0])
				check(t, rej[0].Err)
				check(t, New(&Options{StrictImport: true}).ReplaceGroup(Group{Name: "srv"}, []Tool{{Name: "bad", RawSchema: raw}}))
			})
			t.Run("catalog import", func(t *testing.T) {
				c, err := ParseCatalog([]byte(`{"server":"srv","tools":[{"name":"bad","inputSchema":` + tc.schema + `},{"name":"good","inputSchema":{}}]}`))
				require.NoError(t, err, "one bad tool does not fail the server")
				require.Len(t, c.Rejected, 1)
				check(t, c.Rejected[0].Err)
				r := New(nil)
				require.ErrorIs(t, r.Import(c), ErrRejected, "the bad tool is reported, the good one imported")
				assert.Equal(t, []string{"mcp__srv__good"}, names(r.Snapshot()))
				require.Len(t, r.Rejected(), 1)
				check(t, New(&Options{StrictImport: true}).Import(c))
			})
		})
	}
}

// A schema built in Go may be a graph; marshalling a loop would recurse
// forever, so it is checked first.
func TestGoSchemaGraphRejected(t *testing.T) {
	loop := &jsonschema.Schema{Type: "object"}
	loop.Properties = map[string]*jsonschema.Schema{"self": loop}
	err := New(nil).Register(Tool{Name: "loop", InputSchema: loop})
	require.ErrorIs(t, err, errInvalidSchema)
	assert.Contains(t, err.Error(), "not a tree")

	self := &jsonschema.Schema{Type: "object", Ref: "#"}
	err = New(nil).Register(Tool{Name: "self", InputSchema: self})
	require.ErrorIs(t, err, errInvalidSchema)
	assert.Contains(t, err.Error(), "recurse forever")
}

// BenchmarkRegisterDeepNot measures the rejection of issue 11's 16 KB schema
// of 2,000 nested "not", which took about 2 s to register before the depth
// of the raw bytes was bounded ahead of parsing.
func BenchmarkRegisterDeepNot(b *testing.B) {
	raw := []byte(`{"type":"object","properties":{"a":` + strings.Repeat(`{"not":`, 2000) + `{}` + strings.Repeat(`}`, 2000) + `}}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := New(nil).Register(Tool{Name: "deep", RawSchema: raw}); err == nil {
			b.Fatal("accepted")
		}
	}
}

// Issue 11's case 8: self-built registration must not tell a probing model
// who holds a name. Every holder gets the same answer.
func TestSelfBuiltTakenIsOneAnswer(t *testing.T) {
	r := New(nil)
	require.NoError(t, r.Register(Tool{Name: "Read"}))
	require.NoError(t, r.ReplaceGroup(Group{Name: "secret", Tier: TierFull}, []Tool{{Name: "drop_db"}}))
	require.NoError(t, r.Register(Tool{Group: selfBuiltGroup, Name: "count"}))
	answers := map[string]string{}
	for _, name := range []string{"Read", "mcp__secret__drop_db", "count", ToolSearchName, DeferExecuteName} {
		err := r.Register(Tool{Group: selfBuiltGroup, Name: name})
		require.ErrorIs(t, err, ErrDuplicateTool, name)
		answers[strings.ReplaceAll(err.Error(), name, "NAME")] = name
	}
	assert.Len(t, answers, 1, "one answer whoever holds the name: %v", answers)
	for a := range answers {
		assert.NotContains(t, a, "secret")
		assert.NotContains(t, a, "built-in")
	}
}
