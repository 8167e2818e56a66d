// Package sdkbridge sends toolshelf request bodies through the official
// SDKs — github.com/openai/openai-go/v3,
// github.com/anthropics/anthropic-sdk-go and google.golang.org/genai — byte
// for byte, and brings the replies back as [request.Reply] values.
//
// genai has no option to send given bytes (it encodes its typed values
// itself), so a genai client is made with [GeminiHTTPClient] as its
// HTTPClient: [Gemini] and [GeminiStream] then send through the SDK's
// call, path, headers, key and retries, with toolshelf's body put on the
// wire at the transport, and the raw reply kept for request.DecodeReply.
//
// A toolshelf session builds the whole request body (the frozen prefix and
// the history); the SDK contributes its client: the key, base URL,
// retries, timeouts and middleware a harness already configured. The body
// goes out unchanged (option.WithRequestBody), the reply comes back raw
// (option.WithResponseBodyInto) and is decoded by [request.DecodeReply];
// a stream is fed event by event into a [request.Stream], with the
// [DONE] that openai-go's stream swallows put back. A refusal becomes an
// [*Error] whose kind errors.Is matches (ErrRateLimited, ErrOverloaded,
// ErrContextTooLong, ErrInvalidRequest, ErrAuth, ErrQuota, ErrServer),
// carrying the retry advice the provider sent.
//
// In a harness's loop (README.md's "The loop"), the bridge is the model call:
//
//	client := anthropic.NewClient() // ANTHROPIC_API_KEY, retries, middleware ...
//	for {
//		body, err := s.AppendRequest(buf[:0], turn)
//		if err != nil {
//			return err
//		}
//		buf = body
//		reply, err := sdkbridge.Anthropic(ctx, &client, body)
//		for try := 0; err != nil && try < 3; try++ {
//			var apiErr *sdkbridge.Error
//			if !errors.As(err, &apiErr) || !apiErr.Retryable() {
//				break
//			}
//			time.Sleep(apiErr.RetryAfter)
//			// Resend the same body: building the turn again would add it twice.
//			reply, err = sdkbridge.Anthropic(ctx, &client, body)
//		}
//		if err != nil {
//			return err
//		}
//		// run reply.Message.ToolCalls with s.Call, as in the README
//	}
//
// The package's examples (Example, ExampleOpenAI, ExampleAnthropic) run
// such a loop against request/replytest's scripted provider server.
//
// For a streamed request the body must ask for it ("stream": true in
// Config.Extra): the SDKs' streaming calls set that member, and with it
// already true the bytes stay the body's.
package sdkbridge
