// Package budget measures requests — characters, bytes and tokens per
// section, exact with a tokenizer or estimates marked as such — and keeps the
// savings account of deferral.
//
// It never invents a number it cannot measure.
//
// Accounting sits above the session it measures: budget imports request,
// never the reverse. [Sections] reads a live session's latest request as
// [Section] values, [AccountFor] a session's savings account, and a
// [Ledger] takes the decoded reply's own request.Usage:
//
//	counter := budget.CounterForModel("gpt-4o")
//	m := counter.Measure(budget.Sections(sess)) // every section, by class
//	bar := budget.BarFor(m, budget.Tokens{}, 128000)
//	fmt.Println(bar.Render(nil))
//
// API: a [Counter] ([CounterForModel], or [NewCounter] for an [Encoding]
// by name; [Counter.Method] says how its estimates are made) measures
// [Section]s into a [Measurement] ([Counter.Measure]) that a [Bar] draws. [NewAccount] and
// [AccountFor] give the savings [Account] of a deferral plan, and a
// [Ledger] adds up the request.Usage a provider reports. A ledger made by
// [FollowSession] follows its session — the live account, without taking
// it again — and gives every request whose cache read fell short a
// [CacheMiss] with a typed [MissCause]: the provider's diagnosis
// cross-checked with the session's change log, or the log alone. The
// remaining types are what those return.
package budget
