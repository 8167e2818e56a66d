package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// handOffAllowed lists the exported types and functions of public packages
// whose only users outside their package are toolshelf's own stages, each
// with the reason it is public anyway. Everything else of that kind belongs
// in internal/ (issue 24: what a harness writes or reads is public, the
// pipeline's hand-offs are not).
var handOffAllowed = map[string]string{
	"defer.ParseLayer":        "how a harness loads permission-style rules from its own settings file without a panic (MustLayer is the panicking form for literals); the CLI's --rules is the in-tree use",
	"render.Error":            "NewSession returns it for a bad description template; a harness reaches the template's name and position with errors.As",
	"render.Description":      "how a harness checks a built-in tool's description template, with the variables its Config will declare, before any session freezes it (issue 42: render holds its engine); request.NewSession is the in-tree use",
	"budget.NewCounterCache":  "a process that shares one counter among many sessions bounds its memory (issue 34: a counter with a cache bound); internal/testkit/scale is the in-tree use",
	"execute.ParsePermission": "how a harness loads its Allow/Ask/Deny rules from its own settings file without a panic (MustPermissions is the panicking form for literals); the CLI's --rules is the in-tree use (issue 37)",
}

// TestNoHandOffExports fails when a public package exports a type or
// function that no harness-like code (examples/, integration/) and no other
// public package's exported API uses, while other toolshelf packages do: a
// hand-off between the pipeline's stages made public.
func TestNoHandOffExports(t *testing.T) {
	exports, err := scanUsers(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	seen := map[string]bool{}
	for _, e := range exports {
		if e.kind != "type" && e.kind != "func" {
			continue
		}
		key := e.pkg + "." + e.name
		seen[key] = true
		if !e.handOff() {
			continue
		}
		if _, ok := handOffAllowed[key]; ok {
			continue
		}
		bad = append(bad, key+" (used by "+strings.Join(e.users[userCore], ", ")+")")
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("%s is exported only for other toolshelf packages: move it to internal/ or allow it in handOffAllowed with a reason", b)
	}
	for key, why := range handOffAllowed {
		if !seen[key] {
			t.Errorf("handOffAllowed lists %s, which is no longer exported: drop the entry", key)
		}
		if strings.TrimSpace(why) == "" {
			t.Errorf("handOffAllowed: %s has no reason", key)
		}
	}
}

// TestScanUsersSees keeps TestNoHandOffExports honest: the scan must find
// the loop's entry point with its harness users and a known hand-off with
// only toolshelf's own, or the test above would pass on a broken scan.
func TestScanUsersSees(t *testing.T) {
	exports, err := scanUsers(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]*export{}
	for _, e := range exports {
		byKey[e.pkg+"."+e.name] = e
	}
	ns := byKey["request.NewSession"]
	if ns == nil || len(ns.users[userHarness]) == 0 || ns.handOff() {
		t.Fatalf("request.NewSession: want harness users, got %+v", ns)
	}
	cfg := byKey["request.Config"]
	if cfg == nil || cfg.handOff() {
		t.Fatalf("request.Config: want a public type, got %+v", cfg)
	}
	if len(exports) < 100 {
		t.Fatalf("scan found %d exported identifiers; want the whole library's", len(exports))
	}
}

// TestScanUsersClassifies runs the scan on a small synthetic tree: a
// function only another stage calls is a hand-off; one an example calls, or
// one another package's exported signature names, is not.
func TestScanUsersClassifies(t *testing.T) {
	root := t.TempDir()
	write := func(rel, src string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/a.go", "package a\n\nfunc Stage() {}\n\nfunc Loop() {}\n\ntype T struct{}\n\nfunc Unused() {}\n")
	write("b/b.go", "package b\n\nimport \"github.com/toolshelf/toolshelf/a\"\n\nfunc Run(t a.T) { a.Stage() }\n")
	write("examples/x/main.go", "package main\n\nimport \"github.com/toolshelf/toolshelf/a\"\n\nfunc main() { a.Loop() }\n")
	exports, err := scanUsers(root)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, e := range exports {
		got[e.pkg+"."+e.name] = e.handOff()
	}
	want := map[string]bool{"a.Stage": true, "a.Loop": false, "a.T": false, "a.Unused": false, "b.Run": false}
	for k, v := range want {
		if h, ok := got[k]; !ok || h != v {
			t.Errorf("%s: hand-off = %v (found %v), want %v", k, h, ok, v)
		}
	}
}

// maxPublic is the ceiling on exported identifiers in public packages:
// issue 24 cut them from 617 to 303 under a ceiling of 330; issue 34 made
// the count a report rather than a goal and asked for under 350. The same
// round's issues asked for 24 exported event kinds and the observer
// adapters (35), a fourth provider, the genai bridge and two framework
// adapters (36), rule warnings, a scripted provider server and a
// self-rendering account (37): 366, each justified in docs/api.md. Issue 42
// folded seam packages into what they describe (registry.Tool.Aliased,
// Snapshot.TierOf) and gave render its engine (render.Vars, Vars.Check,
// Description): 371; issue 42's guard on every load two more (373); issue
// 44's send check and conversation assertion three (ErrEdited,
// Session.DeclareRewrite, requesttest.AssertConversation): 376; issue 45
// the cache-miss explanation a harness alerts on (the typed causes, the
// change log, the diagnosis): 34 more, 410; issue 48 ten a newcomer lacked
// (mcp.StartError, sdkbridge.Call and its three constructors,
// registry.ErrSchemaRefused and Hint, execute.ParsePermissions): 420; issue
// 43 mcpconfig, the one reader of mcpServers files (five): 425. issue 44's
// native live tools the betas a harness sends with them
// (Session.NativeBetas, sdkbridge.Betas): 427; mcpconfig.SplitCommand,
// GroupName and ErrCommand, one public home for the command-line rules the
// core CLI and integration/cmd/toolshelf-mcp had as two copies: 430. The
// ceiling is a tripwire for growth nobody justified, not a target.
const maxPublic = 430

// TestPublicCount keeps the public surface at or under maxPublic, counted as
// go run ./internal/cmd/apicount counts it.
func TestPublicCount(t *testing.T) {
	counts, err := count(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	public := 0
	for dir, ids := range counts {
		if !isInternal(dir) {
			public += len(ids)
		}
	}
	if public > maxPublic {
		t.Fatalf("%d exported identifiers in public packages, over the ceiling of %d: move hand-offs to internal/ (go run ./internal/cmd/apicount -users)", public, maxPublic)
	}
	t.Logf("%d exported identifiers in public packages (ceiling %d)", public, maxPublic)
}

// TestAPIDoc keeps docs/api.md's counts table equal to what count reports;
// TOOLSHELF_UPDATE=1 rewrites it.
func TestAPIDoc(t *testing.T) {
	counts, err := count(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("| package | before | now |\n|---|--:|--:|\n")
	dirs := make([]string, 0, len(counts))
	for d := range counts {
		if !isInternal(d) {
			dirs = append(dirs, d)
		}
	}
	sort.Strings(dirs)
	public := 0
	for _, d := range dirs {
		before := "–"
		if n, ok := countsAtRoundStart[d]; ok {
			before = strconv.Itoa(n)
		}
		fmt.Fprintf(&b, "| `%s` | %s | %d |\n", d, before, len(counts[d]))
		public += len(counts[d])
	}
	for d, n := range countsAtRoundStart {
		if _, ok := counts[d]; !ok {
			fmt.Fprintf(&b, "| `%s` (now internal or gone) | %d | 0 |\n", d, n)
		}
	}
	fmt.Fprintf(&b, "| **public packages** | **617** | **%d** |\n", public)
	table := b.String()
	// The rows of gone packages come from a map: sort them too.
	lines := strings.Split(strings.TrimSuffix(table, "\n"), "\n")
	head, rows, total := lines[:2], lines[2:len(lines)-1], lines[len(lines)-1]
	sort.Slice(rows, func(i, j int) bool {
		return strings.ReplaceAll(rows[i], "`", "") < strings.ReplaceAll(rows[j], "`", "")
	})
	table = strings.Join(append(append(head, rows...), total), "\n") + "\n"

	path := filepath.Join("..", "..", "..", "docs", "api.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const open, close = "<!-- apicount -->\n", "<!-- /apicount -->"
	i, j := strings.Index(string(doc), open), strings.Index(string(doc), close)
	if i < 0 || j < i {
		t.Fatalf("docs/api.md lacks the %q … %q block", open, close)
	}
	got := string(doc[i+len(open) : j])
	if got == table {
		return
	}
	if os.Getenv("TOOLSHELF_UPDATE") == "1" {
		out := string(doc[:i+len(open)]) + table + string(doc[j:])
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/api.md's counts are stale (TOOLSHELF_UPDATE=1 go test ./internal/cmd/apicount -run TestAPIDoc):\n%s", table)
}

// countsAtRoundStart is go run ./internal/cmd/apicount on main when issue 24's
// cut began (commit be74308), for the table's "before" column.
var countsAtRoundStart = map[string]int{
	"budget": 88, "defer": 41, "execute": 62, "execute/executetest": 8,
	"integration/embeddings": 8, "integration/mcp": 32, "integration/otel": 13,
	"integration/redisstore": 5, "integration/sdkbridge": 17, "integration/sdkcheck": 9,
	"registry": 101, "render": 13, "request": 100, "request/replytest": 2,
	"request/requesttest": 6, "request/storetest": 17, "request/wire": 16, "search": 79,
}
