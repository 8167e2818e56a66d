package request

import (
	"bytes"
	"encoding/json"
	"testing"
)

// BenchmarkDecode compares the decoders with a baseline measured in the
// same run: encoding/json decoding the same bytes into a generic value
// (the whole body; each event's data for a stream). The ratio of the two
// is what to read, not the absolute ns/op.
func BenchmarkDecode(b *testing.B) {
	cases := []struct {
		name, file string
		p          Provider
	}{
		{"anthropic-body", "anthropic/message_tool_use.json", Anthropic},
		{"chat-stream", "openai-chat/stream_parallel_tool_calls.sse", OpenAIChat},
		{"anthropic-stream", "anthropic/stream_tool_use.sse", Anthropic},
	}
	for _, c := range cases {
		data := readReply(b, c.file)
		stream := bytes.HasSuffix([]byte(c.file), []byte(".sse"))
		b.Run(c.name+"/baseline-generic-json", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !stream {
					var v any
					if err := json.Unmarshal(data, &v); err != nil {
						b.Fatal(err)
					}
					continue
				}
				err := readEvents(bytes.NewReader(data), func(_ string, d []byte) error {
					var v any
					if bytes.Equal(d, []byte("[DONE]")) {
						return nil
					}
					return json.Unmarshal(d, &v)
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/decode", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decodeFile(c.p, c.file, data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
