package wire

// MaxChatTools is the most entries OpenAI Chat Completions accepts in
// tools[]. See [Rules] for the source.
const MaxChatTools = 128
