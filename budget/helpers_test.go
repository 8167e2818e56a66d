package budget_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
)

func testdata(parts ...string) string {
	return filepath.Join(append([]string{"..", "testdata"}, parts...)...)
}

// loadPlan imports catalogs into a fresh registry and plans with the
// default (resident) policy, every tier visible.
func loadPlan(t testing.TB, layers []deferral.Layer, files ...string) *deferral.Plan {
	t.Helper()
	reg := registry.New(nil)
	for _, f := range files {
		c, err := registry.LoadCatalog(f)
		require.NoError(t, err)
		require.NoError(t, reg.Import(c))
	}
	p := &deferral.Policy{Layers: layers}
	plan, err := p.Plan(reg.Snapshot(), deferral.View{Tier: registry.TierFull})
	require.NoError(t, err)
	return plan
}

// sizedTool is a tool whose description has exactly n runes (schema "{}" adds 2).
func sizedTool(name string, n int) *registry.Tool {
	d := make([]byte, n-2)
	for i := range d {
		d[i] = 'x'
	}
	return &registry.Tool{Name: name, Description: string(d), RawSchema: []byte(`{}`)}
}

func formatPct(f float64, digits int) string {
	return strconv.FormatFloat(f*100, 'f', digits, 64) + "%"
}

func mustLayer(t testing.TB, rules ...string) []deferral.Layer {
	t.Helper()
	l, err := deferral.ParseLayer("test", strings.Join(rules, "\n"))
	require.NoError(t, err)
	return []deferral.Layer{l}
}
