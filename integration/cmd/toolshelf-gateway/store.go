package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"sync/atomic"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolshelf/toolshelf/request"
)

// sessionHeader is streamable HTTP's session header.
const sessionHeader = "Mcp-Session-Id"

// storeHandler serves the profile name over streamable HTTP with the
// session state in g.store, so that replicas sharing the store serve one
// client session whichever gets each request. The go-sdk handler runs
// stateless (every request is served by a fresh server-side MCP session,
// nothing kept in the replica); the toolshelf session — what the client
// loaded, what it was announced — is the stored conversation named by the
// Mcp-Session-Id header, which the gateway assigns on a request without
// one and the client sends back. Each request opens the conversation,
// syncs it with the servers, and each call commits it.
func (g *gateway) storeHandler(name string) http.Handler {
	h := sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		p, err := g.rules.profile(name)
		if err != nil {
			return nil
		}
		srv, err := g.storedServer(r.Context(), p, r.Header.Get(sessionHeader))
		if err != nil {
			g.logf("session %s: %v", r.Header.Get(sessionHeader), err)
			return nil
		}
		return srv
	}, &sdk.StreamableHTTPOptions{Stateless: true})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id := r.Header.Get(sessionHeader); !validSessionID(id) {
			// A new session, or an id this gateway never gives: a new one.
			id = newSessionID()
			r.Header.Set(sessionHeader, id)
			w.Header().Set(sessionHeader, id)
		}
		h.ServeHTTP(w, r)
	})
}

// newSessionID returns 128 random bits in hex: a session id nobody guesses.
func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func validSessionID(id string) bool {
	if len(id) != 32 {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil
}

// storedServer opens the stored session sid of profile p and returns the
// MCP server for one request on it.
func (g *gateway) storedServer(ctx context.Context, p *profile, sid string) (*sdk.Server, error) {
	convID := "gateway:" + p.name + ":" + sid
	cfg, err := g.sessionConfig(p, g.approve, convID)
	if err != nil {
		return nil, err
	}
	var opts *request.ConversationOptions
	if len(g.secret) > 0 {
		opts = &request.ConversationOptions{Key: g.secret}
	}
	conv, err := request.OpenConversation(ctx, g.store, convID, cfg, opts)
	if err != nil {
		return nil, err
	}
	s := conv.Session()
	if _, err := s.Sync(ctx, g.served.Snapshot()); err != nil {
		return nil, err
	}
	var n atomic.Int64
	commit := func(ctx context.Context) {
		err := conv.Commit(ctx, "call-"+strconv.FormatInt(n.Add(1), 10)+"-"+newSessionID())
		if errors.Is(err, request.ErrConflict) {
			// Another replica committed first: this call ran, and what it
			// loaded is lost; the next search loads it again.
			g.logf("session %s: %v", sid, err)
		} else if err != nil {
			g.logf("session %s: commit: %v", sid, err)
		}
	}
	return g.mcpServer(p, s, convID, commit), nil
}
