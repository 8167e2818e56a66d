package request

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/registry"
)

// liveDocRows reads the live-case table of docs/stability.md: case →
// (prefix, next message).
func liveDocRows(t *testing.T) map[string][2]string {
	b, err := os.ReadFile(filepath.Join("..", "docs", "stability.md"))
	require.NoError(t, err)
	rows := map[string][2]string{}
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "| case | prefix | next message |") {
			in = true
			continue
		}
		if !in || strings.HasPrefix(line, "|---") {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		require.Len(t, cells, 4, line)
		rows[strings.TrimSpace(cells[0])] = [2]string{strings.TrimSpace(cells[1]), strings.TrimSpace(cells[2])}
	}
	return rows
}

// blocksSaid names what a turn's blocks were, as the table writes it.
func blocksSaid(blocks []string) string {
	if len(blocks) == 0 {
		return "nothing"
	}
	var out []string
	for _, b := range blocks {
		switch {
		case strings.HasPrefix(b, "<new_deferred_tool>"):
			out = append(out, "`<new_deferred_tool>`")
		case strings.HasPrefix(b, "<tools_changed"):
			label := strings.Split(b, "\n")[2]
			out = append(out, "`<tools_changed>` "+label[:strings.Index(label, " (")])
		default:
			out = append(out, b)
		}
	}
	return strings.Join(out, ", ")
}

// TestLiveCasesDoc plays each live case of docs/stability.md's table and
// checks what it did to the prefix and to the next user message.
func TestLiveCasesDoc(t *testing.T) {
	stat := func(desc string) registry.Tool {
		return mcpTool("stat", desc, `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)
	}
	listDir := mcpTool("list_dir", "List the entries of a directory.", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)
	files := func(reg *registry.Registry, tools ...registry.Tool) {
		require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "files"}, tools))
	}
	change := func(t *testing.T, f *liveFixture, reg *registry.Registry) PendingChange {
		files(reg, listDir, stat("Show a file's size, rewritten."))
		_, err := f.s.Sync(context.Background(), reg.Snapshot())
		require.NoError(t, err)
		pend := f.s.PendingChanges()
		require.Len(t, pend, 1)
		return pend[0]
	}
	cases := map[string]struct {
		accept bool
		act    func(t *testing.T, f *liveFixture, reg *registry.Registry)
	}{
		"nothing changed": {act: func(t *testing.T, f *liveFixture, reg *registry.Registry) {
			_, err := f.s.Sync(context.Background(), reg.Snapshot())
			require.NoError(t, err)
		}},
		"arrived": {act: func(t *testing.T, f *liveFixture, reg *registry.Registry) {
			require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "late"}, []registry.Tool{mcpTool("sum", "Add two numbers.", sumSchema)}))
			_, err := f.s.Sync(context.Background(), reg.Snapshot())
			require.NoError(t, err)
		}},
		"left": {act: func(t *testing.T, f *liveFixture, reg *registry.Registry) {
			files(reg, listDir)
			_, err := f.s.Sync(context.Background(), reg.Snapshot())
			require.NoError(t, err)
		}},
		"back": {act: func(t *testing.T, f *liveFixture, reg *registry.Registry) {
			files(reg, listDir)
			_, err := f.s.Sync(context.Background(), reg.Snapshot())
			require.NoError(t, err)
			f.turn(t, Message{Role: RoleAssistant, Text: "ok"}, userMsg("between"))
			files(reg, listDir, stat("Show a file's size and modification time."))
			_, err = f.s.Sync(context.Background(), reg.Snapshot())
			require.NoError(t, err)
		}},
		"changed, pending": {act: func(t *testing.T, f *liveFixture, reg *registry.Registry) { change(t, f, reg) }},
		"approved": {act: func(t *testing.T, f *liveFixture, reg *registry.Registry) {
			p := change(t, f, reg)
			require.NoError(t, f.s.ApproveChange(p.Tool, p.NewSHA256))
		}},
		"rejected": {act: func(t *testing.T, f *liveFixture, reg *registry.Registry) {
			p := change(t, f, reg)
			require.NoError(t, f.s.RejectChange(p.Tool, p.NewSHA256))
		}},
		"accepted (`Config.AcceptChanges`)": {accept: true, act: func(t *testing.T, f *liveFixture, reg *registry.Registry) {
			files(reg, listDir, stat("Show a file's size, rewritten."))
			_, err := f.s.Sync(context.Background(), reg.Snapshot())
			require.NoError(t, err)
		}},
		// A drop leaves the registry as it is (integration/mcp keeps the
		// group; its handlers answer unavailable): Sync sees the same tools.
		"server dropped": {act: func(t *testing.T, f *liveFixture, reg *registry.Registry) {
			require.NoError(t, reg.SetGroup(registry.Group{Name: "files"}))
			_, err := f.s.Sync(context.Background(), reg.Snapshot())
			require.NoError(t, err)
		}},
	}
	rows := liveDocRows(t)
	require.Len(t, rows, len(cases), "every row of the table is played, and every case is in the table")
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			row, ok := rows[name]
			require.True(t, ok, "docs/stability.md has no row %q", name)
			reg := liveRegistry(t)
			f := newLiveFixture(t, reg, Anthropic, func(cfg *Config) { cfg.AcceptChanges = c.accept })
			prefix := string(f.s.Prefix())
			f.turn(t, userMsg("hi"))
			c.act(t, f, reg)
			f.turn(t, Message{Role: RoleAssistant, Text: "ok"}, userMsg("next"))
			msgs := f.s.Messages()
			assert.Equal(t, "same", row[0])
			assert.Equal(t, prefix, string(f.s.Prefix()))
			said := blocksSaid(msgs[len(msgs)-1].Blocks)
			assert.True(t, strings.HasPrefix(row[1], said), "the table says %q; the session said %q", row[1], said)
		})
	}
}
