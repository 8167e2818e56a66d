package request

import "fmt"

// sentIDs records, for every tool call the history encoded, the id it was
// sent under ([traits.callID]) and the harness's id behind it, so that no
// two calls of one conversation are sent under one id unless they have
// one id: an id a provider refuses is sent as its alias, and a later
// call's own id could equal an earlier call's alias. Before, such a call
// gave two tool_use blocks with one id in one body, which the provider
// refuses (or reads as one call). A history adopted from encoded bytes
// (a version 2 state, a store's snapshot) knows the calls it encodes from
// then on.
type sentIDs struct {
	byID map[string]string // sent id → the call's own id
}

// record notes the calls of m, an encoded assistant message.
func (h *history) recordIDs(m *Message) {
	for i := range m.ToolCalls {
		id := m.ToolCalls[i].ID
		sent := h.enc.traits().callID(id)
		if _, ok := h.ids.byID[sent]; ok {
			continue
		}
		if h.ids.byID == nil {
			h.ids.byID = map[string]string{}
		}
		h.ids.byID[sent] = id
	}
}

// checkIDsUnique refuses a call of assistant message at (m) sent under
// the id of an earlier call of the history, or of the messages checked
// before it in the same turn, with another own id. batch holds, as sent id
// then own id pairs, those messages' calls, then m's from index start
// ([history.checkAssistant] mapped them).
func (h *history) checkIDsUnique(m *Message, at int, batch []string, start int) error {
	for j := range m.ToolCalls {
		sent, id := batch[start+2*j], batch[start+2*j+1]
		other, ok := h.ids.byID[sent]
		for k := 0; !ok && k < start+2*j; k += 2 {
			other, ok = batch[k+1], batch[k] == sent
		}
		if ok && other != id {
			return fmt.Errorf("%w: messages[%d].tool_calls[%d]: id %q is sent as %q, as the earlier call %q is (provider %q's call-id rule); give the call another id", ErrInvalidMessage, at, j, id, sent, other, h.provider)
		}
	}
	return nil
}
