package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
)

// profile is what one client is served: the servers it sees and the rules
// that govern it. The default profile (name "") serves every server with
// the rules before the first [profile NAME] header; a named profile adds
// its own section's rules to those.
type profile struct {
	name    string
	servers []string // empty: every server
	layer   deferral.Layer
	perms   []execute.Permission
	mode    deferral.Mode
	hooks   []execute.Hook
}

// rulesFile is the --rules file: the CLI's rules (Defer, NoDefer, Allow,
// Ask, Deny of a pattern, one a line, # comments), plus the gateway's own
// lines: Mode(pattern) (the session shows only the tools some Mode line
// selects: a name pattern or an @annotation), and profile sections — a
// "[profile NAME]" header, then Servers(a, b) and rules that apply to that
// profile only, on top of the lines before the first header.
type rulesFile struct {
	path     string
	base     profile
	profiles map[string]*profile
	// twins are the Twins(name: a, b) lines: servers with one tool set,
	// offered once (see twins.go).
	twins []twinSet
}

// twinSet is one Twins line: the folded group's name and its members.
type twinSet struct {
	name    string
	members []string
}

// readRules reads the rules file at path; "" is no rules.
func readRules(path string) (*rulesFile, error) {
	rf := &rulesFile{path: path, profiles: map[string]*profile{}}
	if path == "" {
		return rf, nil
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--rules: %w", err)
	}
	if len(text) > maxRulesFile {
		return nil, fmt.Errorf("--rules %s: %d bytes; the limit is %d", path, len(text), maxRulesFile)
	}
	return rf, rf.parse(string(text))
}

// maxRulesFile bounds a rules file: one a line, they are a few kilobytes.
const maxRulesFile = 1 << 20

// parse reads the file's text into the base profile and the named ones.
func (rf *rulesFile) parse(text string) error {
	lines := strings.Split(text, "\n")
	cur := &rf.base
	// Each section's deferral rules go to ParseLayer with the other lines
	// blanked, so that its errors keep the file's line numbers.
	layerLines := map[*profile][]string{cur: make([]string, len(lines))}
	order := []*profile{cur}
	for i, line := range lines {
		t := strings.TrimSpace(line)
		where := fmt.Sprintf("%s, line %d", rf.path, i+1)
		switch {
		case t == "" || strings.HasPrefix(t, "#"):
		case strings.HasPrefix(t, "[profile ") && strings.HasSuffix(t, "]"):
			name := strings.TrimSpace(t[len("[profile ") : len(t)-1])
			if !validProfile(name) {
				return fmt.Errorf("%s: profile name %q: use letters, digits, - and _", where, name)
			}
			if _, dup := rf.profiles[name]; dup {
				return fmt.Errorf("%s: profile %q given twice", where, name)
			}
			cur = &profile{name: name}
			rf.profiles[name] = cur
			layerLines[cur] = make([]string, len(lines))
			order = append(order, cur)
		case strings.HasPrefix(t, "Servers(") && strings.HasSuffix(t, ")"):
			if cur == &rf.base {
				return fmt.Errorf("%s: Servers(...) belongs in a [profile NAME] section", where)
			}
			for s := range strings.SplitSeq(t[len("Servers("):len(t)-1], ",") {
				if s = strings.TrimSpace(s); s != "" {
					cur.servers = append(cur.servers, s)
				}
			}
		case strings.HasPrefix(t, "Hook(") && strings.Contains(t, ")"):
			pattern, command, _ := strings.Cut(t[len("Hook("):], ")")
			h, err := parseHook(strings.TrimSpace(pattern), command)
			if err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
			cur.hooks = append(cur.hooks, h)
		case strings.HasPrefix(t, "Twins(") && strings.HasSuffix(t, ")"):
			ts, err := parseTwins(t[len("Twins(") : len(t)-1])
			if err != nil {
				return fmt.Errorf("%s: %s: %w", where, t, err)
			}
			if cur != &rf.base {
				return fmt.Errorf("%s: Twins(...) belongs before the first [profile NAME] section", where)
			}
			rf.twins = append(rf.twins, ts)
		case strings.HasPrefix(t, "Mode(") && strings.HasSuffix(t, ")"):
			p := strings.TrimSpace(t[len("Mode(") : len(t)-1])
			if p == "" {
				return fmt.Errorf("%s: Mode() needs a pattern", where)
			}
			cur.mode.Allow = append(cur.mode.Allow, p)
		case strings.HasPrefix(t, "Allow(") || strings.HasPrefix(t, "Ask(") || strings.HasPrefix(t, "Deny("):
			p, err := execute.ParsePermission(t)
			if err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
			p.Source = rf.path
			cur.perms = append(cur.perms, p)
		default:
			layerLines[cur][i] = line
		}
	}
	for _, p := range order {
		layer, err := deferral.ParseLayer(rf.path, strings.Join(layerLines[p], "\n"))
		if err != nil {
			return fmt.Errorf("%w (a rule is Defer, NoDefer, Allow, Ask, Deny or Mode of a pattern, Servers(...) in a [profile NAME] section)", err)
		}
		p.layer = layer
	}
	for _, p := range rf.profiles {
		slices.Sort(p.servers)
		p.servers = slices.Compact(p.servers)
	}
	return nil
}

// profile returns the profile named name ("" is the default one): the base
// rules with the section's on top.
func (rf *rulesFile) profile(name string) (*profile, error) {
	if name == "" {
		p := rf.base
		return &p, nil
	}
	sec, ok := rf.profiles[name]
	if !ok {
		return nil, fmt.Errorf("unknown profile %q (profiles in %s: %s)", name, orNone(rf.path), orNone(strings.Join(rf.names(), ", ")))
	}
	p := &profile{name: name, servers: sec.servers}
	p.layer = deferral.Layer{Name: rf.base.layer.Name, Rules: slices.Concat(rf.base.layer.Rules, sec.layer.Rules)}
	p.perms = slices.Concat(rf.base.perms, sec.perms)
	p.hooks = slices.Concat(rf.base.hooks, sec.hooks)
	p.mode.Allow = slices.Concat(rf.base.mode.Allow, sec.mode.Allow)
	return p, nil
}

// names returns the profile names, sorted.
func (rf *rulesFile) names() []string {
	var out []string
	for n := range rf.profiles {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// serves reports whether the profile serves server.
func (p *profile) serves(server string) bool {
	return len(p.servers) == 0 || slices.Contains(p.servers, server)
}

func validProfile(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// parseTwins parses "name: a, b, c".
func parseTwins(s string) (twinSet, error) {
	name, list, ok := strings.Cut(s, ":")
	ts := twinSet{name: strings.TrimSpace(name)}
	if !ok || !validProfile(ts.name) || strings.Contains(ts.name, "__") {
		return ts, fmt.Errorf("want Twins(name: server, server, ...) with a name of letters, digits, - and _")
	}
	for m := range strings.SplitSeq(list, ",") {
		if m = strings.TrimSpace(m); m != "" {
			ts.members = append(ts.members, m)
		}
	}
	slices.Sort(ts.members)
	ts.members = slices.Compact(ts.members)
	if len(ts.members) < 2 {
		return ts, fmt.Errorf("twins are two servers or more")
	}
	return ts, nil
}
