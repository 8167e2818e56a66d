package request

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
)

// CacheDiagnosis is a provider's own explanation of a request's prompt
// cache reuse, compared with the earlier response the request named
// ([Config.Diagnostics]): Anthropic's diagnostics.cache_miss_reason, the
// Responses API's prompt_cache_diagnostics. The comparison is of the two
// requests' structure, whatever the cache did; read it next to the
// usage's cache counts.
type CacheDiagnosis struct {
	// Reason is the provider's word, as it sent it. Anthropic (the type of
	// cache_miss_reason): "model_changed", "system_changed",
	// "tools_changed", "messages_changed", "previous_message_not_found",
	// "unavailable". Responses (the reason of a cache_miss, else the
	// type): "model_changed", "prompt_cache_key_changed",
	// "tools_changed", "text_format_changed", "reasoning_effort_changed",
	// "verbosity_changed", "context_compacted", "input_changed",
	// "service_tier_changed"; "cache_hit", "comparison_response_not_found",
	// "unavailable". Empty when the provider sent no reason: Anthropic's
	// null, which means the comparison found no divergence or was still
	// running when the response was written.
	Reason string `json:"reason,omitempty"`
	// MissedTokens is the provider's estimate of the input tokens that
	// would have been read from the cache had the prefix matched
	// (Anthropic's cache_missed_input_tokens, Responses'
	// cache_missed_tokens); 0 when it gave none.
	MissedTokens int `json:"missed_tokens,omitempty"`
}

// maxDiagnosisReason bounds the reason kept from a reply: the longest
// documented word is 26 bytes; a longer one is cut, so that a hostile
// reply cannot make every ledger line large.
const maxDiagnosisReason = 64

// anthropicDiagnosis decodes an Anthropic message's diagnostics member
// (absent or null: nil).
func anthropicDiagnosis(where string, raw json.RawMessage) (*CacheDiagnosis, error) {
	if !isObject(raw) {
		return nil, nil
	}
	var d struct {
		Reason json.RawMessage `json:"cache_miss_reason"`
	}
	if err := unmarshalExact(raw, &d); err != nil {
		return nil, replyError(where+".diagnostics", "%v", err)
	}
	out := &CacheDiagnosis{}
	if !isObject(d.Reason) {
		return out, nil // null: no divergence, or not yet known
	}
	var r struct {
		Type   string `json:"type"`
		Missed int    `json:"cache_missed_input_tokens"`
	}
	if err := unmarshalExact(d.Reason, &r); err != nil {
		return nil, replyError(where+".diagnostics.cache_miss_reason", "%v", err)
	}
	return out.set(where+".diagnostics.cache_miss_reason", r.Type, r.Missed)
}

// responsesDiagnosis decodes a response's prompt_cache_diagnostics
// (absent or null: nil).
func responsesDiagnosis(where string, raw json.RawMessage) (*CacheDiagnosis, error) {
	if !isObject(raw) {
		return nil, nil
	}
	var d struct {
		Type   string `json:"type"`
		Reason string `json:"reason"`
		Missed int    `json:"cache_missed_tokens"`
	}
	if err := unmarshalExact(raw, &d); err != nil {
		return nil, replyError(where+".prompt_cache_diagnostics", "%v", err)
	}
	word := d.Type
	if d.Type == "cache_miss" && d.Reason != "" {
		word = d.Reason
	}
	return (&CacheDiagnosis{}).set(where+".prompt_cache_diagnostics", word, d.Missed)
}

func (d *CacheDiagnosis) set(where, reason string, missed int) (*CacheDiagnosis, error) {
	if missed < 0 {
		return nil, replyError(where, "negative missed token count %d", missed)
	}
	if len(reason) > maxDiagnosisReason {
		reason = reason[:maxDiagnosisReason]
	}
	d.Reason, d.MissedTokens = reason, missed
	return d, nil
}

// identified returns r with the provider's response id and the cache
// diagnosis: Reply.ID, Message.ReplyID and Usage.Diagnosis.
func identified(r Reply, err error, id string, d *CacheDiagnosis) (Reply, error) {
	if err != nil {
		return r, err
	}
	if len(id) > maxReplyID {
		id = id[:maxReplyID]
	}
	r.ID, r.Message.ReplyID, r.Usage.Diagnosis = id, id, d
	return r, nil
}

// maxReplyID bounds a kept response id (the providers' are under 64
// bytes): the session sends it back with the next request.
const maxReplyID = 256

// appendDiagnostics appends, before the body's closing brace, the field
// of t that asks the provider to diagnose the request's cache reuse
// against the reply with id prev: Anthropic's
// diagnostics.previous_message_id (null on the first turn, which opts in
// without a comparison), the Responses API's
// prompt_cache_options.comparison_response_id (left out on the first
// turn: there is nothing to compare with).
func appendDiagnostics(dst []byte, t *traits, prev string) []byte {
	switch {
	case t.diagnostics == "" || (prev == "" && !t.diagnosticsFirst):
		return dst
	case prev == "":
		return append(append(dst, t.diagnostics...), "null}"...)
	}
	return append(jsonx.AppendString(append(dst, t.diagnostics...), prev), '}')
}

// diagnosticsLen bounds what appendDiagnostics adds.
func diagnosticsLen(prev string) int { return 64 + 2*len(prev) }

// lastReplyID returns the reply id of the last assistant message of msgs
// ("" when it carries none: the harness built it, and the reply it
// answers is unknown), and whether msgs hold an assistant message.
func lastReplyID(msgs []Message) (string, bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == RoleAssistant {
			return msgs[i].ReplyID, true
		}
	}
	return "", false
}

// validReplyID reports whether id can be sent back as a response id: a
// bounded string without control characters.
func validReplyID(id string) bool {
	return len(id) <= maxReplyID && !bytes.ContainsFunc([]byte(id), func(r rune) bool { return r < 0x20 || r == 0x7f })
}

// checkDiagnostics refuses Config.Diagnostics where the provider has no
// diagnosis, and an extra field that would collide with its field.
func checkDiagnostics(cfg *Config) error {
	if !cfg.Diagnostics {
		return nil
	}
	enc, _ := encoderFor(cfg.Provider) // checkConfig checked the provider
	field := enc.traits().diagnosticsField
	if field == "" {
		return fmt.Errorf("%w: Config.Diagnostics: %s has no cache diagnosis; the session's ChangeLog explains its misses (leave Diagnostics off)", ErrConfig, cfg.Provider)
	}
	if _, ok := cfg.Extra[field]; ok {
		return fmt.Errorf("%w: Config.Extra[%q]: with Config.Diagnostics the session writes this field itself", ErrConfig, field)
	}
	return nil
}

// restorePreviousReply takes the saved reply id, or, from a state saved
// before it was kept, the last one of the restored messages.
func (s *Session) restorePreviousReply(st *state) error {
	id := st.PreviousReply
	if id == "" {
		id, _ = lastReplyID(st.Messages)
	}
	if !validReplyID(id) {
		return fmt.Errorf("previous_reply_id: over %d bytes or with control characters", maxReplyID)
	}
	s.log.prevReply = id
	return nil
}
