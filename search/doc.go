// Package search owns the tool_search tool: the <available_deferred_tools>
// name index rendered into its description, and the exact and fuzzy lookup
// that loads deferred tools' schemas into a session.
//
// It never drops a name to save space: descriptions may go, names stay.
package search
