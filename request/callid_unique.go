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
// the id of an earlier call of the history, or of batch (the messages
// checked before it in the same turn, as sent id then own id pairs), with
// another own id. It returns batch with m's calls added.
func (h *history) checkIDsUnique(m *Message, at int, batch []string) ([]string, error) {
	for j := range m.ToolCalls {
		id := m.ToolCalls[j].ID
		sent := h.enc.traits().callID(id)
		other, ok := h.ids.byID[sent]
		for k := 0; !ok && k < len(batch); k += 2 {
			other, ok = batch[k+1], batch[k] == sent
		}
		if ok && other != id {
			return batch, fmt.Errorf("%w: messages[%d].tool_calls[%d]: id %q is sent as %q, as the earlier call %q is (provider %q's call-id rule); give the call another id", ErrInvalidMessage, at, j, id, sent, other, h.provider)
		}
		batch = append(batch, sent, id)
	}
	return batch, nil
}
