// Package deferral decides, for one session, which tools are resident (their
// schema sent in tools[] every turn), deferred (only their name in the
// tool_search index) or hidden (absent everywhere). It lives in the directory
// defer/ but is named deferral, because defer is a Go keyword.
//
// A [Policy] combines, from highest to lowest precedence:
//
//  1. self-built tools: always deferred;
//  2. ordered override [Layer]s (built-in defaults < user < project <
//     session, say), each a list of Defer(pattern) and NoDefer(pattern)
//     rules; across all layers NoDefer wins over Defer, as deny wins over
//     allow;
//  3. the tool's own three-state DeferLoading flag;
//  4. its group's settings (always-load, per-tool configs, default);
//  5. the global [Default]: resident, deferred, or auto (defer only when
//     the resident definitions would exceed a share of the context window).
//
// Before any of that, a session's [View] — its [Mode] (for example the ask
// mode Mode{Name: "ask", ReadOnly: true}: the read-only tools), its tier and
// whether it was elevated — hides every tool outside it. A hidden tool is
// structurally absent, not advised against.
//
// [Policy.Plan] returns a [Plan]: every tool's [State] and the reason for it,
// which [Plan.Explain] returns. As soon as anything is deferred the plan adds
// the entry tools tool_search and defer_execute, pinned resident.
//
// The package decides nothing from a prompt: its inputs are the snapshot,
// the policy and the view.
//
// API: a harness writes a [Policy] (a [Default] and [Layer]s of rules, from
// [ParseLayer] or [MustLayer]) and a [View] (a [Mode], tier, elevation),
// and reads the [Plan] that request computes from them (or [Policy.Plan]
// does): [Plan.Resident], [Plan.Deferred], [Plan.State] and, for "why is
// my tool not visible?", [Plan.Explain]'s [Decision]. A rule that does not
// parse is an error whose message starts with "defer: invalid rule" and
// quotes the rule and its layer. The pattern syntax is the one execute's
// permission rules use, and request applies the same mode and tier rules
// again to tools that arrive mid-session.
package deferral
