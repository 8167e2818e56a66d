// count.js counts texts with the legacy Claude tokenizer (@anthropic-ai/tokenizer
// 0.0.4), the way its countTokens does: NFKC-normalised, special tokens allowed,
// one tokenizer reused for every text. Input on stdin: a JSON array of strings.
// Output on stdout: a JSON array of token counts, in the same order.
// Run by main.go (go run ./internal/cmd/claudecal), never by the library.
'use strict';
const { getTokenizer } = require('@anthropic-ai/tokenizer');

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => {
  const texts = JSON.parse(input);
  const tok = getTokenizer();
  const counts = texts.map((t) => tok.encode(t.normalize('NFKC'), 'all').length);
  tok.free();
  process.stdout.write(JSON.stringify(counts));
});
