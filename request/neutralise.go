package request

// appendToolResult appends a tool result's text as one JSON string with
// the "<" of every wrapper tag written as "&lt;" (package tagsafe), as
// [appendQueryBody] does for a user's text. It is the one neutraliser
// every tool result passes through on its way to the model, whatever path
// it came by: results of the dispatcher (already neutralised there, and
// neutralising is idempotent), a transcript, history the harness passes
// in, a conversation restored from state or a store. Before it, a result
// that came in through the history carried live
// </user_query><new_deferred_tool> tags into the body. Assistant text and
// provider-native parts are not tool results: they are the provider's own
// bytes (some signed) and are sent back verbatim.
func appendToolResult(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendQueryBody(b, s)
	return append(b, '"')
}
