package request

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// manyBlocksReply is an Anthropic message of n one-character text blocks:
// 40,000 of them make the ~1 MB reply of issue 22.
func manyBlocksReply(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"message","role":"assistant","content":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":"text","text":"a"}`)
	}
	b.WriteString(`],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":5}}`)
	return b.Bytes()
}

// manyItemsResponse is a Responses API response of n message items of one
// character each.
func manyItemsResponse(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"status":"completed","output":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a"}]}`)
	}
	b.WriteString(`],"usage":{"input_tokens":10,"output_tokens":5}}`)
	return b.Bytes()
}

// manyBlocksStream is an Anthropic event stream of n text blocks of 250
// characters each: 2,048 of them make the ~1.1 MB stream of issue 22.
func manyBlocksStream(n int) []byte {
	var b bytes.Buffer
	text := strings.Repeat("x", 250)
	b.WriteString("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n")
	for i := range n {
		fmt.Fprintf(&b, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":%d,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n", i)
		fmt.Fprintf(&b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":%d,\"delta\":{\"type\":\"text_delta\",\"text\":\"%s\"}}\n\n", i, text)
		fmt.Fprintf(&b, "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":%d}\n\n", i)
	}
	b.WriteString("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":500}}\n\n")
	b.WriteString("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	return b.Bytes()
}

// plainDecode is what a competent user writes without this package:
// encoding/json decoding the body into a generic value, or each event's
// data of a stream.
func plainDecode(data []byte, stream bool) error {
	if !stream {
		var v any
		return json.Unmarshal(data, &v)
	}
	return readEvents(bytes.NewReader(data), func(_ string, d []byte) error {
		if bytes.Equal(d, []byte("[DONE]")) {
			return nil
		}
		var v any
		return json.Unmarshal(d, &v)
	})
}

// allocatedBytes returns the bytes f allocates, on average over runs.
func allocatedBytes(runs int, f func()) float64 {
	var before, after runtime.MemStats
	f() // warm caches (the decoders' per-type key plans)
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(runs)
}

type linearCase struct {
	name   string
	p      Provider
	data   []byte
	stream bool
	text   int // length of the reply's text
}

func linearCases() []linearCase {
	return []linearCase{
		{"anthropic-40000-blocks", Anthropic, manyBlocksReply(40000), false, 40000},
		{"responses-20000-items", OpenAIResponses, manyItemsResponse(20000), false, 20000},
		{"anthropic-stream-2048-blocks", Anthropic, manyBlocksStream(2048), true, 2048 * 250},
		{"gemini-40000-parts", Gemini, manyPartsReply(40000), false, 40000},
		{"gemini-stream-2048-chunks", Gemini, manyPartsStream(2048), true, 2048 * 250},
	}
}

// manyPartsReply is a Gemini response of n one-character text parts.
func manyPartsReply(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"candidates":[{"content":{"role":"model","parts":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"text":"x"}`)
	}
	b.WriteString(`]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":1}}`)
	return b.Bytes()
}

// manyPartsStream is a streamGenerateContent stream of n chunks of 250
// characters of text each, then the finishing chunk.
func manyPartsStream(n int) []byte {
	var b bytes.Buffer
	text := strings.Repeat("y", 250)
	for range n {
		b.WriteString(`data: {"candidates":[{"content":{"role":"model","parts":[{"text":"` + text + `"}]},"index":0}],"responseId":"r"}` + "\n\n")
	}
	b.WriteString(`data: {"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":1}}` + "\n\n")
	return b.Bytes()
}

func (c linearCase) decode() (Reply, error) {
	if c.stream {
		return DecodeStream(c.p, bytes.NewReader(c.data))
	}
	return DecodeReply(c.p, c.data)
}

// TestDecodeLinear is issue 22's case 4: "Reply text is joined
// quadratically. A 1 MB Anthropic reply of 40,000 one-character text
// blocks allocates 841 MB in DecodeReply (817× its size); 20,000
// Responses message items, 214 MB; a 1.1 MB stream of 2,048 text blocks,
// 532 MB (m.Text += and a rebuilt string per item)." Each decode now
// allocates at most 4 times what encoding/json allocates to decode the
// same bytes into a generic value, measured in the same run.
func TestDecodeLinear(t *testing.T) {
	for _, c := range linearCases() {
		t.Run(c.name, func(t *testing.T) {
			r, err := c.decode()
			require.NoError(t, err)
			require.Len(t, r.Message.Text, c.text)
			ours := allocatedBytes(2, func() { _, _ = c.decode() })
			plain := allocatedBytes(2, func() { _ = plainDecode(c.data, c.stream) })
			t.Logf("%d bytes: decoder %.0f B, encoding/json %.0f B, ratio %.2f", len(c.data), ours, plain, ours/plain)
			assert.LessOrEqual(t, ours/plain, 4.0, "decoder allocates %.0f B for %d bytes; encoding/json %.0f B", ours, len(c.data), plain)
		})
	}
}

// BenchmarkDecodeLinear decodes issue 22's large replies and reports the
// decoder's allocation as a ratio to a plain encoding/json decode of the
// same bytes in the same run (alloc-ratio; TestDecodeLinear holds it at
// 4 or below).
func BenchmarkDecodeLinear(b *testing.B) {
	for _, c := range linearCases() {
		b.Run(c.name, func(b *testing.B) {
			plain := allocatedBytes(2, func() { _ = plainDecode(c.data, c.stream) })
			b.ReportAllocs()
			b.SetBytes(int64(len(c.data)))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			n := 0
			for b.Loop() {
				if _, err := c.decode(); err != nil {
					b.Fatal(err)
				}
				n++
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(n)/plain, "alloc-ratio")
		})
	}
}
