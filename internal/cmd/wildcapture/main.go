// Command wildcapture installs the MCP servers listed in testdata/wild/servers.json
// from npm, starts each over stdio, and writes its live tools/list to
// testdata/wild/<file>.json with the package, its version and the capture
// date. With -check it compares the live listing of the servers named by
// -only with the committed files instead (tool names and schemas; the date
// aside) and exits 1 on a difference: .ci/run does that for a handful.
//
//	go run ./internal/cmd/wildcapture                      # capture every server
//	go run ./internal/cmd/wildcapture -only pkg1,pkg2      # capture some
//	go run ./internal/cmd/wildcapture -check -only pkg1    # compare, write nothing
//
// Each package is installed at the pinned version into its own directory
// under -cache with npm (install scripts off unless the entry says
// "scripts": true), or taken from testdata/mcp-servers/node_modules when
// that holds the same version. Servers that want an API key get a
// placeholder from the entry's "env": listing tools needs no account.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/toolshelf/toolshelf/internal/engine/mcpstdio"
)

// server is one entry of servers.json.
type server struct {
	Package string            `json:"package"`
	Version string            `json:"version"`
	Bin     string            `json:"bin"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Group   string            `json:"group"`
	License string            `json:"license"`
	Scripts bool              `json:"scripts,omitempty"`
	// JSONLinesOnly drops the server's stdout lines that are not JSON
	// (log lines some servers print there before initialize, which the
	// TypeScript SDK's client skips and internal/engine/mcpstdio refuses).
	JSONLinesOnly bool `json:"json_lines_only,omitempty"`
}

// jsonLinesOnly runs the server given as its arguments, passing on only the
// stdout lines that start with "{".
const jsonLinesOnly = `const {spawn} = require("child_process");
const c = spawn(process.execPath, process.argv.slice(1), {stdio: ["inherit", "pipe", "inherit"]});
let b = "";
c.stdout.on("data", d => {
  b += d;
  for (let i; (i = b.indexOf("\n")) >= 0; ) {
    const l = b.slice(0, i + 1);
    b = b.slice(i + 1);
    if (l.trimStart().startsWith("{")) process.stdout.write(l);
  }
});
c.on("exit", code => process.exit(code ?? 1));`

// File is the name of the server's capture under testdata/wild.
func (s server) File() string {
	return strings.ReplaceAll(strings.TrimPrefix(s.Package, "@"), "/", "__") + ".json"
}

func main() {
	dir := flag.String("dir", "testdata/wild", "the corpus directory (servers.json and the captures)")
	cache := flag.String("cache", filepath.Join(os.TempDir(), "toolshelf-wild"), "where packages are installed")
	only := flag.String("only", "", "comma-separated packages to capture (default: all)")
	check := flag.Bool("check", false, "compare live listings with the committed files; write nothing")
	timeout := flag.Duration("timeout", 90*time.Second, "bound on one server's install and listing")
	prefixes := flag.String("installed", filepath.Join("testdata", "mcp-servers"), "comma-separated npm prefixes whose node_modules may already hold a pinned package")
	flag.Parse()
	servers, err := readServers(filepath.Join(*dir, "servers.json"))
	if err != nil {
		fail(err)
	}
	var want []string
	if *only != "" {
		want = strings.Split(*only, ",")
	}
	bad := 0
	for _, s := range servers {
		if want != nil && !slices.Contains(want, s.Package) {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), *timeout)
		err := one(ctx, s, *dir, *cache, strings.Split(*prefixes, ","), *check)
		cancel()
		if err != nil {
			bad++
			fmt.Fprintf(os.Stderr, "%s@%s: %v\n", s.Package, s.Version, err)
		}
	}
	if bad > 0 {
		fail(fmt.Errorf("%d server(s) failed", bad))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "capture:", err)
	os.Exit(1)
}

func readServers(path string) ([]server, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []server
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// one installs, lists and writes (or compares) one server.
func one(ctx context.Context, s server, dir, cache string, prefixes []string, check bool) error {
	bin, err := install(ctx, s, cache, prefixes)
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "wild-run-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	args := []string{"node", bin}
	if s.JSONLinesOnly {
		args = []string{"node", "-e", jsonLinesOnly, bin}
	}
	for _, a := range s.Args {
		args = append(args, strings.ReplaceAll(a, "$WORK", work))
	}
	env := []string{"HOME=" + work}
	for _, k := range sortedKeys(s.Env) {
		env = append(env, k+"="+strings.ReplaceAll(s.Env[k], "$WORK", work))
	}
	l, err := mcpstdio.List(ctx, args, &mcpstdio.Options{Env: env, Dir: work})
	if err != nil {
		return err
	}
	out := document(s, l, time.Now().UTC().Format("2006-01-02"))
	// A server that names its working directory (figma's image folder)
	// would write this machine's temp path into the file: it is $WORK there,
	// as in the server's arguments.
	out = bytes.ReplaceAll(out, []byte(work), []byte("$WORK"))
	path := filepath.Join(dir, s.File())
	if check {
		old, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := compare(old, out); err != nil {
			return err
		}
		fmt.Printf("%s@%s: %d tools, names and schemas as committed\n", s.Package, s.Version, len(l.Tools))
		return nil
	}
	fmt.Printf("%s@%s: %d tools\n", s.Package, s.Version, len(l.Tools))
	return os.WriteFile(path, out, 0o644)
}

// install returns the path of the package's bin script, installing the
// pinned version when no installed copy (under one of prefixes, or in the
// cache) has it.
func install(ctx context.Context, s server, cache string, prefixes []string) (string, error) {
	for _, p := range prefixes {
		if p == "" {
			continue
		}
		// The server starts in its own directory: a relative prefix
		// would name a script node cannot find from there.
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", err
		}
		if bin, ok := installed(abs, s); ok {
			return bin, nil
		}
	}
	root := filepath.Join(cache, strings.TrimSuffix(s.File(), ".json"))
	done := filepath.Join(root, "installed") // written once npm succeeded: a killed install is redone
	if _, err := os.Stat(done); err == nil {
		if bin, ok := installed(root, s); ok {
			return bin, nil
		}
	}
	if err := os.RemoveAll(root); err != nil {
		return "", err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(root, "package.json"), []byte(`{"private":true}`), 0o644); err != nil {
		return "", err
	}
	args := []string{"install", "--no-audit", "--no-fund", "--loglevel=error", "--no-save"}
	if !s.Scripts {
		args = append(args, "--ignore-scripts")
	}
	cmd := exec.CommandContext(ctx, "npm", append(args, s.Package+"@"+s.Version)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "PUPPETEER_SKIP_DOWNLOAD=1", "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install: %w: %s", err, tailOf(b))
	}
	if err := os.WriteFile(done, nil, 0o644); err != nil {
		return "", err
	}
	bin, ok := installed(root, s)
	if !ok {
		return "", fmt.Errorf("npm installed %s but not version %s with bin %q", s.Package, s.Version, s.Bin)
	}
	return bin, nil
}

// installed reports where root's copy of the package keeps its bin, when
// root holds the pinned version.
func installed(root string, s server) (string, bool) {
	pkg := filepath.Join(root, "node_modules", filepath.FromSlash(s.Package))
	b, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	if err != nil {
		return "", false
	}
	var meta struct {
		Version string          `json:"version"`
		Bin     json.RawMessage `json:"bin"`
	}
	if json.Unmarshal(b, &meta) != nil || meta.Version != s.Version {
		return "", false
	}
	var one string
	var many map[string]string
	if json.Unmarshal(meta.Bin, &one) != nil {
		if json.Unmarshal(meta.Bin, &many) != nil || many[s.Bin] == "" {
			return "", false
		}
		one = many[s.Bin]
	}
	return filepath.Join(pkg, filepath.FromSlash(one)), true
}

// document is a capture file: a catalog file (server, description, tools)
// that registry.ParseCatalog reads, with where it came from. Tools keep the
// server's member and key order.
func document(s server, l *mcpstdio.Listing, date string) []byte {
	head := map[string]string{"package": s.Package, "version": s.Version, "license": s.License, "captured": date, "server": s.Group, "description": l.Description()}
	var b bytes.Buffer
	b.WriteString("{")
	for _, k := range []string{"package", "version", "license", "captured", "server", "description"} {
		v, _ := json.Marshal(head[k])
		fmt.Fprintf(&b, "%q:%s,", k, v)
	}
	b.WriteString(`"tools":[`)
	for i, t := range l.Tools {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(t)
	}
	b.WriteString("]}")
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		panic(err) // the listing's tools are compact JSON objects
	}
	out.WriteByte('\n')
	return out.Bytes()
}

// compare reports a difference in tool names or schemas between a committed
// capture and a live one.
func compare(old, live []byte) error {
	type tool struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	var a, b struct {
		Tools []tool `json:"tools"`
	}
	if err := json.Unmarshal(old, &a); err != nil {
		return err
	}
	if err := json.Unmarshal(live, &b); err != nil {
		return err
	}
	if len(a.Tools) != len(b.Tools) {
		return fmt.Errorf("committed capture has %d tools, the live server %d", len(a.Tools), len(b.Tools))
	}
	for i := range a.Tools {
		if a.Tools[i].Name != b.Tools[i].Name {
			return fmt.Errorf("tool %d: committed %q, live %q", i, a.Tools[i].Name, b.Tools[i].Name)
		}
		var x, y bytes.Buffer
		_ = json.Compact(&x, a.Tools[i].InputSchema)
		_ = json.Compact(&y, b.Tools[i].InputSchema)
		if !bytes.Equal(x.Bytes(), y.Bytes()) {
			return fmt.Errorf("tool %q: the live schema differs from the committed one", a.Tools[i].Name)
		}
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func tailOf(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 600 {
		s = "..." + s[len(s)-600:]
	}
	return s
}
