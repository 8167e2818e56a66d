package redisstore_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/request"
)

// TestReplicaSendCheck (issue 44): a second replica that opens a
// conversation from a real redis-server with a Config that builds another
// prefix (a newer system prompt) is refused before a body leaves, naming
// the member that changed; it builds once it declares the restart, and
// its commit stores the new chain; a replica with the old Config is then
// refused in turn. A view change on one replica moves nothing the next
// replica sends.
func TestReplicaSendCheck(t *testing.T) {
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			ctx := context.Background()
			a := newLiveReplica(t, p)
			store := newStore(t)
			conv, err := request.OpenConversation(ctx, store, "sent", a.cfg, nil)
			require.NoError(t, err)
			first, err := conv.Session().BuildRequest(request.Turn{Messages: []request.Message{{Role: request.RoleUser, Text: "hi"}}})
			require.NoError(t, err)
			require.NoError(t, conv.Session().SetView(deferral.View{Mode: deferral.Mode{Name: "ask", Allow: []string{"Read"}}}))
			require.NoError(t, conv.Commit(ctx, "a"))
			next := []request.Message{{Role: request.RoleAssistant, Text: "ok"}, {Role: request.RoleUser, Text: "go"}}

			same := a.cfg
			same.Cache = &request.Cache{}
			b, err := request.OpenConversation(ctx, store, "sent", same, nil)
			require.NoError(t, err)
			require.NoError(t, b.Session().SetView(deferral.View{Mode: deferral.Mode{Name: "ask", Allow: []string{"Read"}}}))
			body, err := b.Session().BuildRequest(request.Turn{Messages: next})
			require.NoError(t, err)
			n := len(conv.Session().Prefix())
			assert.Equal(t, string(first[:n]), string(body[:n]), "the view change moved nothing")

			other := a.cfg
			other.System, other.Cache = "A newer system prompt.", &request.Cache{}
			c, err := request.OpenConversation(ctx, store, "sent", other, nil)
			require.NoError(t, err)
			_, err = c.Session().BuildRequest(request.Turn{Messages: next})
			require.ErrorIs(t, err, request.ErrEdited)
			assert.Contains(t, err.Error(), "the prefix changed")
			c.Session().DeclareRewrite()
			_, err = c.Session().BuildRequest(request.Turn{Messages: next})
			require.NoError(t, err)
			require.NoError(t, c.Commit(ctx, "b"))

			old := a.cfg
			old.Cache = &request.Cache{}
			d, err := request.OpenConversation(ctx, store, "sent", old, nil)
			require.NoError(t, err)
			_, err = d.Session().BuildRequest(request.Turn{Messages: []request.Message{{Role: request.RoleAssistant, Text: "ok"}, {Role: request.RoleUser, Text: "again"}}})
			require.ErrorIs(t, err, request.ErrEdited)
		})
	}
}
