package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/internal/engine/mcpstdio"
	"github.com/toolshelf/toolshelf/registry"
)

func TestDocumentIsACatalogFile(t *testing.T) {
	l := &mcpstdio.Listing{ServerName: "x", Tools: []json.RawMessage{json.RawMessage(`{"name":"t","inputSchema":{"type":"object","properties":{"b":{},"a":{}}}}`)}}
	doc := document(server{Package: "@s/x", Version: "1.0.0", Group: "x", License: "MIT"}, l, "2026-12-01")
	c, err := registry.ParseCatalog(doc)
	require.NoError(t, err)
	assert.Equal(t, "x", c.Server)
	require.Len(t, c.Tools, 1)
	assert.Equal(t, `{"type":"object","properties":{"b":{},"a":{}}}`, string(c.Tools[0].RawSchema), "key order kept")
	var meta struct{ Package, Version, Captured string }
	require.NoError(t, json.Unmarshal(doc, &meta))
	assert.Equal(t, "@s/x", meta.Package)
	assert.Equal(t, "2026-12-01", meta.Captured)
}

func TestCompare(t *testing.T) {
	s := server{Package: "p", Version: "1", Group: "g"}
	a := document(s, &mcpstdio.Listing{Tools: []json.RawMessage{json.RawMessage(`{"name":"t","inputSchema":{"type":"object"}}`)}}, "2026-01-01")
	b := document(s, &mcpstdio.Listing{Tools: []json.RawMessage{json.RawMessage(`{"name":"t","inputSchema":{"type":"object"}}`)}}, "2026-12-01")
	c := document(s, &mcpstdio.Listing{Tools: []json.RawMessage{json.RawMessage(`{"name":"t","inputSchema":{"type":"object","required":["x"]}}`)}}, "2026-12-01")
	d := document(s, &mcpstdio.Listing{Tools: []json.RawMessage{json.RawMessage(`{"name":"u","inputSchema":{"type":"object"}}`)}}, "2026-12-01")
	assert.NoError(t, compare(a, b), "dates aside")
	assert.ErrorContains(t, compare(a, c), "schema differs")
	assert.ErrorContains(t, compare(a, d), `committed "t", live "u"`)
}
