// Package budget measures requests — characters, bytes and tokens per
// section, exact with a tokenizer or estimates marked as such — and keeps the
// savings account of deferral.
//
// It never invents a number it cannot measure.
//
// Budget measures [Section] values and never decodes messages: package
// request, which owns the one Message type, hands it the sections of a live
// session (request.Session.Sections) and of a recorded conversation
// (request.Transcript, request.ParseTranscript for a file saved from
// Session.Messages, host blocks and native parts included). The arrow runs
// request → budget, so budget imports no package above the registry, the
// deferral plan and the search index budget:
//
//	counter := budget.CounterForModel("gpt-4o")
//	m := counter.Measure(sess.Sections()) // every section, by class
//	bar := budget.BarFor(m, budget.Tokens{}, 128000)
//	fmt.Println(bar.Render(nil))
//
// API: a [Counter] ([NewCounter], [CounterForModel], [NewCounterCache] for a
// harness sizing its cache; [Encoding] names) measures [Section]s into a
// [Measurement] ([Counter.Measure], [Counter.Tally] turn by turn) that a
// [Bar] draws. [NewAccount] gives the savings [Account] of a deferral plan,
// [Advise] ranks tools by cost and use, [Boilerplate] and [RepeatedFields]
// find repeated text, [Counter.TaskCost] and [Compare] cost a recorded task
// with and without deferral, and a [Ledger] adds up the [Usage] a provider
// reports. The remaining types are what those return. Number formatting for
// reports lives in internal/textfmt, shared with the CLI.
package budget
