package wire

// MaxChatTools is the most entries OpenAI Chat Completions accepts in
// tools[]. See [Rules] for the source.
const MaxChatTools = 128

// MaxGeminiTools is the most function declarations the Gemini API accepts
// in one request ("Maximum 512 function declarations can be provided":
// Tool.FunctionDeclarations in google.golang.org/genai's types.go).
const MaxGeminiTools = 512
