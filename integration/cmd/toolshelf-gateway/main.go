// Command toolshelf-gateway is one MCP server in front of many: an MCP host
// (Claude Desktop, Claude Code, Cursor, VS Code …) launches it, or a team
// reaches it over streamable HTTP, and it serves a tool list that never
// changes — tool_search (the name index of every upstream tool, short
// names under server headers, in its description) and defer_execute, plus
// the tools the rules make resident — while the upstream servers of the
// host's own mcpServers file come, go, change and fail behind it.
//
// It is written on toolshelf's public API alone (the Go harness's view):
// integration/mcp's Manager connects the upstream servers (stdio and
// streamable HTTP, in parallel, following tools/list_changed), each
// downstream client session is a request.Session whose dispatcher applies
// the rules file (validation against the upstream schema, Allow/Ask/Deny,
// Defer/NoDefer), and an Ask rule asks the user through MCP elicitation.
//
// Usage:
//
//	toolshelf-gateway serve --mcp-config FILE [--rules FILE] [--pins FILE] [--profile NAME] [--http ADDR]
//	toolshelf-gateway explain --mcp-config FILE [--rules FILE] [--pins FILE] [--profile NAME] TOOL
//	toolshelf-gateway approve --pins FILE (TOOL... | --all)
//	toolshelf-gateway pins --pins FILE
//
// See docs/gateway.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/integration/mcp"
	"github.com/toolshelf/toolshelf/integration/redisstore"
)

// secretEnv names the environment variable holding the replicas' shared
// secret (--redis).
const secretEnv = "TOOLSHELF_GATEWAY_SECRET"

// version is the gateway's serverInfo and clientInfo version.
const version = "0.1.0"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolshelf-gateway:", err)
		if errors.Is(err, errUsage) || errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

var errUsage = errors.New(`usage:
  toolshelf-gateway serve --mcp-config FILE [--rules FILE] [--pins FILE] [--profile NAME] [--http ADDR [--redis ADDR]] [--wait 10s]
  toolshelf-gateway explain --mcp-config FILE [--rules FILE] [--pins FILE] [--profile NAME] TOOL
  toolshelf-gateway approve --pins FILE (TOOL... | --all)
  toolshelf-gateway pins --pins FILE`)

// flags are the options the commands share.
type flags struct {
	mcpConfig, rules, pins, profile, http string
	redis, trace                          string
	logEvents                             bool
	wait, connectTimeout                  time.Duration
	all, quiet                            bool
}

func parse(cmd string, args []string, stderr io.Writer) (*flags, []string, error) {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f flags
	fs.StringVar(&f.mcpConfig, "mcp-config", "", "the host's mcpServers file (Claude Desktop, Claude Code, Cursor …); ${VAR} and ${VAR:-default} are expanded")
	fs.StringVar(&f.rules, "rules", "", "rules `FILE`: Defer/NoDefer, Allow/Ask/Deny, Mode of a pattern, one a line; [profile NAME] sections with Servers(a, b)")
	fs.StringVar(&f.pins, "pins", "", "pins `FILE`: the definitions accepted; a changed or renamed tool is quarantined there until approved (empty: in memory)")
	fs.StringVar(&f.profile, "profile", "", "the profile served over stdio (a [profile NAME] section of the rules file)")
	fs.StringVar(&f.http, "http", "", "serve streamable HTTP on `ADDR` (/mcp, /mcp/PROFILE) instead of stdio")
	fs.StringVar(&f.redis, "redis", "", "with --http: keep the sessions' state in the Redis at `ADDR` (host:port), so that replicas behind one load balancer serve one client session; every replica needs the same TOOLSHELF_GATEWAY_SECRET (at least 16 bytes)")
	fs.StringVar(&f.trace, "trace", "", "write an OpenTelemetry span per search and per call (integration/otel) to `FILE`, one JSON line each")
	fs.BoolVar(&f.logEvents, "log-events", false, "log every decision of the dispatcher (allowed, denied, asked …) to stderr as JSON (execute.LogEvents)")
	fs.DurationVar(&f.wait, "wait", 10*time.Second, "how long the first session waits for servers still connecting, so their tools are in its index (later ones are still found by tool_search)")
	fs.DurationVar(&f.connectTimeout, "connect-timeout", 60*time.Second, "bound on one connection attempt of a server")
	fs.BoolVar(&f.all, "all", false, "approve: every quarantined tool")
	fs.BoolVar(&f.quiet, "quiet", false, "serve: do not copy the servers' stderr and the gateway's events to stderr")
	// Flags may follow the positional arguments (explain TOOL --wait 5s).
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return &f, rest, nil
		}
		rest = append(rest, args[0])
		args = args[1:]
	}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errUsage
	}
	cmd := args[0]
	f, rest, err := parse(cmd, args[1:], stderr)
	if err != nil {
		return err
	}
	switch cmd {
	case "serve":
		if len(rest) > 0 {
			return fmt.Errorf("%w\nunexpected argument %q", errUsage, rest[0])
		}
		return serve(ctx, f, stdin, stdout, stderr)
	case "explain":
		if len(rest) != 1 {
			return fmt.Errorf("%w\nexplain takes one tool name", errUsage)
		}
		return explainCmd(ctx, f, rest[0], stdout, stderr)
	case "approve":
		if f.pins == "" || (len(rest) == 0) == !f.all {
			return fmt.Errorf("%w\napprove needs --pins and tool names or --all", errUsage)
		}
		done, err := approve(f.pins, rest, f.all)
		if err != nil {
			return err
		}
		for _, n := range done {
			fmt.Fprintf(stdout, "approved %s\n", n)
		}
		return nil
	case "pins":
		if f.pins == "" {
			return fmt.Errorf("%w\npins needs --pins", errUsage)
		}
		return listPins(f.pins, stdout)
	}
	return fmt.Errorf("%w\nunknown command %q", errUsage, cmd)
}

// start reads the files and starts a gateway.
func start(f *flags, log io.Writer) (*gateway, *profile, error) {
	if f.mcpConfig == "" {
		return nil, nil, fmt.Errorf("%w\n--mcp-config is required", errUsage)
	}
	servers, err := mcp.LoadConfig(f.mcpConfig, nil)
	if err != nil {
		return nil, nil, err
	}
	rules, err := readRules(f.rules)
	if err != nil {
		return nil, nil, err
	}
	p, err := rules.profile(f.profile)
	if err != nil {
		return nil, nil, err
	}
	pins, err := newPinStore(f.pins)
	if err != nil {
		return nil, nil, err
	}
	o := gatewayOptions{rules: rules, pins: pins, log: log, connectTimeout: f.connectTimeout}
	if f.redis != "" {
		if f.http == "" {
			return nil, nil, fmt.Errorf("%w\n--redis needs --http: a stdio session has one client and one process", errUsage)
		}
		o.secret = []byte(os.Getenv(secretEnv))
		if len(o.secret) < 16 {
			return nil, nil, fmt.Errorf("--redis: set %s to the same secret of at least 16 bytes on every replica (it signs the stored sessions and the users' answers)", secretEnv)
		}
		o.store = redisstore.New(redis.NewClient(&redis.Options{Addr: f.redis}), nil)
	}
	var closers []func() error
	if f.trace != "" {
		tf, err := os.Create(f.trace)
		if err != nil {
			return nil, nil, fmt.Errorf("--trace: %w", err)
		}
		obs, shutdown, err := traceObserver(tf)
		if err != nil {
			tf.Close()
			return nil, nil, err
		}
		o.observer = obs
		closers = append(closers, func() error { return shutdown(context.Background()) }, tf.Close)
	}
	if f.logEvents && log != nil {
		o.observer = execute.MultiObserver(o.observer, execute.LogEvents(slog.New(slog.NewJSONHandler(log, nil))))
	}
	g, err := newGateway(servers, o)
	if err != nil {
		for _, c := range closers {
			_ = c()
		}
		return nil, nil, err
	}
	g.closers = closers
	return g, p, nil
}

func serve(ctx context.Context, f *flags, stdin io.Reader, stdout, stderr io.Writer) error {
	log := stderr
	if f.quiet {
		log = nil
	}
	g, p, err := start(f, log)
	if err != nil {
		return err
	}
	defer g.close()
	g.waitReady(f.wait)
	if f.http == "" {
		srv, err := g.server(p)
		if err != nil {
			return err
		}
		err = srv.Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}})
		if ctx.Err() != nil || errors.Is(err, io.EOF) {
			return nil
		}
		return err
	}
	ln, err := net.Listen("tcp", f.http)
	if err != nil {
		return err
	}
	g.logf("serving streamable HTTP on http://%s/mcp (profiles: %s)", ln.Addr(), orNone(strings.Join(g.rules.names(), ", ")))
	hs := &http.Server{Handler: g.httpHandler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
