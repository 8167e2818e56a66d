// Package budget measures requests — characters, bytes and tokens per
// section, exact with a tokenizer or estimates marked as such — and keeps the
// savings account of deferral.
//
// It never invents a number it cannot measure.
//
// Accounting sits above the session it measures: budget imports request,
// never the reverse. [Sections] reads a live session's latest request as
// [Section] values, [transcriptOf] and [parseTranscript] a recorded
// conversation (request's one Message type, host blocks and native parts
// included), and [Usage] is the decoded reply's own usage type:
//
//	counter := budget.CounterForModel("gpt-4o")
//	m := counter.Measure(budget.Sections(sess)) // every section, by class
//	bar := budget.BarFor(m, budget.Tokens{}, 128000)
//	fmt.Println(bar.Render(nil))
//
// API: a [Counter] ([NewCounter], [CounterForModel], [NewCounterCache] for a
// harness sizing its cache; [Encoding] names; [Counter.Method] says how its
// estimates are made)
// measures [Section]s into a
// [Measurement] ([Counter.Measure], [Counter.Tally] turn by turn) that a
// [Bar] draws. [NewAccount] gives the savings [Account] of a deferral plan,
// [Advise] ranks tools by cost and use, [Boilerplate] and [RepeatedFields]
// find repeated text, [taskCost] and [compare] cost a recorded task
// with and without deferral, and a [Ledger] adds up the [Usage] a provider
// reports. The remaining types are what those return. Number formatting for
// reports lives in internal/textfmt, shared with the CLI.
package budget
