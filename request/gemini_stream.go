package request

// geminiEvent feeds one chunk of streamGenerateContent?alt=sse: a
// GenerateContentResponse in an event without a name. Text arrives in
// pieces (joined), a function call whole in one part; usageMetadata is
// cumulative (the last one counts); the chunk whose candidate has a
// finishReason is the last.
func (s *Stream) geminiEvent(name string, data []byte) error {
	var r geminiResponse
	if err := unmarshalExact(data, &r); err != nil {
		return s.eventError(name, "data is not a GenerateContentResponse object: %v", err)
	}
	if s.gemini.b.m.Role == "" {
		s.gemini.b.m.Role = RoleAssistant
	}
	stop, err := s.gemini.add("chunk", &r)
	if err != nil {
		return s.eventError(name, "%v", err)
	}
	if r.UsageMetadata != nil {
		u, err := r.UsageMetadata.usage("chunk")
		if err != nil {
			return s.eventError(name, "%v", err)
		}
		s.usage = u
	}
	if stop != "" {
		s.stop = stop
		s.done = true
	}
	return nil
}

func (s *Stream) geminiReply() (Reply, error) {
	rep, err := finishReply(&s.gemini.b, "stream", s.stop, s.usage)
	return identified(rep, err, s.gemini.id, nil)
}
