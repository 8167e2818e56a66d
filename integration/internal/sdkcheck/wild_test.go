package sdkcheck

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/testkit/longtest"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// Every tool of every server of the wild corpus (testdata/wild), resident
// in a body of each provider, is read by the provider's SDK as sent. A
// short run (without TOOLSHELF_LONG) judges each server on one provider,
// in turn, so every server and every provider is still covered.
func TestWildCorpusBodiesSurviveTheSDKs(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(root, "testdata", "wild", "*.json"))
	require.NoError(t, err)
	reg := registry.New(&registry.Options{StrictImport: true})
	var servers []string
	for _, f := range files {
		if filepath.Base(f) == "servers.json" {
			continue
		}
		c, err := registry.LoadCatalog(f)
		require.NoError(t, err)
		require.NoError(t, reg.AddGroup(registry.Group{Name: c.Server, Description: c.Description, DefaultDefer: registry.DeferTrue}))
		require.NoError(t, reg.Import(c), f)
		servers = append(servers, c.Server)
	}
	require.NotEmpty(t, servers)
	snap := reg.Snapshot()
	for pi, p := range providers {
		for si, srv := range servers {
			if !longtest.On() && si%len(providers) != pi {
				continue
			}
			s, err := request.NewSession(request.Config{
				ID: "wild", Snapshot: snap, Provider: p, Model: "test-model", Extra: extra(p),
				Policy: &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("wild", "NoDefer(mcp__"+srv+"__*)")}},
			})
			require.NoError(t, err, srv)
			body, err := s.BuildRequest(request.Turn{Messages: []request.Message{{Role: request.RoleUser, Text: "hello"}}})
			require.NoError(t, err, srv)
			problems, err := Check(p, body)
			require.NoError(t, err, srv)
			assert.Empty(t, problems, "%s on %s", srv, p)
		}
	}
}
