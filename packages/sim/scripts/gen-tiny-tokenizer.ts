// Writes packages/sim/assets/tiny-tokenizer/: the byte-level BPE tokenizer a gRPC simulator serves
// when no --tokenizer-dir is given. Byte-level (GPT-2's byte-to-unicode alphabet) so that any
// UTF-8 text round-trips; a few hundred merges learned here from a small English corpus, so the
// simulator's answers tokenize into word pieces like a real model's rather than into bytes.
// Deterministic: the same corpus always gives the same files. Run from the repository root:
//   node --import tsx packages/sim/scripts/gen-tiny-tokenizer.ts
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const OUT = fileURLToPath(new URL('../assets/tiny-tokenizer/', import.meta.url));
const MERGES = 400;

// The simulator's canned vocabulary (src/text.ts) plus everyday English, so both kinds of answer
// get whole-word tokens for their common words.
const CORPUS = `
the a train switch yard signal track engine car load route station freight line gate crew shift
bell lamp rail bridge tunnel north south east west early late slow fast quiet busy red green amber
steel coal grain water steam runs waits turns stops moves holds passes joins and or to from with
under over near past before after again today tonight here there
Hello world! Hello, world. Hello there, how are you today? I am fine, thank you for asking.
The quick brown fox jumps over the lazy dog. The train leaves the station at nine in the morning,
and the freight line runs north past the bridge and through the tunnel before it turns east.
You are a helpful assistant. The user asks a question and the assistant answers it clearly.
What is the capital of France? The capital of France is Paris. What is two plus two? It is four.
Please write a short story about a signal lamp that waits by the track for the last train home.
Once upon a time there was a quiet yard where the engines slept and the crew drank their coffee.
The model generates tokens one at a time, and each token is a piece of a word or a whole word.
This is a test of the gateway, the router, the tokenizer and the simulated inference engine.
Requests are routed to workers; each worker runs a model and streams its answer back to the user.
Numbers like 1, 2, 3, 10, 42, 100 and 2024 appear in text too, as do dates and times like 12:30.
She said that they would be there in an hour, but the weather was bad and the roads were closed.
It was the best of times, it was the worst of times, it was the age of wisdom and of foolishness.
We should think about what this means for the system, the people who use it, and what comes next.
`;

/** GPT-2's map from bytes to printable code points; ByteLevel pre-tokenizers use the same one. */
function bytesToUnicode(): string[] {
  const printable: number[] = [];
  for (let b = 33; b <= 126; b++) printable.push(b);
  for (let b = 161; b <= 172; b++) printable.push(b);
  for (let b = 174; b <= 255; b++) printable.push(b);
  const map: string[] = new Array<string>(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    map[b] = String.fromCodePoint(printable.includes(b) ? b : 256 + extra++);
  }
  return map;
}

// GPT-2's pre-tokenization pattern, the one ByteLevel applies with use_regex.
const WORD_RE = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

function train(): { vocab: Map<string, number>; merges: [string, string][] } {
  const byteChar = bytesToUnicode();
  const words = new Map<string, { parts: string[]; count: number }>();
  const text = CORPUS.replace(/\s+/g, ' ').trim();
  for (const m of text.matchAll(WORD_RE)) {
    const bytes = Buffer.from(m[0], 'utf8');
    const key = [...bytes].map((b) => byteChar[b] ?? '').join('');
    const entry = words.get(key);
    if (entry === undefined) words.set(key, { parts: [...key], count: 1 });
    else entry.count++;
  }
  const vocab = new Map<string, number>();
  // Ids 0..255 are the bytes in byte order, so every byte has a token.
  for (const ch of byteChar) vocab.set(ch, vocab.size);
  const merges: [string, string][] = [];
  while (merges.length < MERGES) {
    const pairs = new Map<string, number>();
    for (const { parts, count } of words.values()) {
      for (let i = 0; i + 1 < parts.length; i++) {
        const key = `${parts[i]} ${parts[i + 1]}`;
        pairs.set(key, (pairs.get(key) ?? 0) + count);
      }
    }
    let best: string | undefined;
    let bestCount = 0;
    for (const [key, count] of pairs) {
      // Ties go to the lexically smallest pair, so the result never depends on Map order.
      if (count > bestCount || (count === bestCount && best !== undefined && key < best)) {
        best = key;
        bestCount = count;
      }
    }
    if (best === undefined) break; // every pair is unique: nothing more worth merging
    const [a = '', b = ''] = best.split(' ');
    merges.push([a, b]);
    vocab.set(a + b, vocab.size);
    for (const w of words.values()) {
      const next: string[] = [];
      for (let i = 0; i < w.parts.length; i++) {
        if (w.parts[i] === a && w.parts[i + 1] === b) {
          next.push(a + b);
          i++;
        } else next.push(w.parts[i] ?? '');
      }
      w.parts = next;
    }
  }
  return { vocab, merges };
}

const SPECIALS = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'];

// Qwen2's ChatML template, reduced to text content (no tools).
const CHAT_TEMPLATE =
  "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

function main(): void {
  const { vocab, merges } = train();
  const added = SPECIALS.map((content, i) => ({
    id: vocab.size + i,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  }));
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added,
    normalizer: null,
    pre_tokenizer: {
      type: 'ByteLevel',
      add_prefix_space: false,
      trim_offsets: true,
      use_regex: true,
    },
    post_processor: {
      type: 'ByteLevel',
      add_prefix_space: false,
      trim_offsets: true,
      use_regex: true,
    },
    decoder: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab: Object.fromEntries(vocab),
      merges: merges.map(([a, b]) => `${a} ${b}`),
    },
  };
  const eos = added[2];
  const config = {
    architectures: ['SimForCausalLM'],
    model_type: 'sim',
    vocab_size: vocab.size + added.length,
    bos_token_id: null,
    eos_token_id: eos?.id,
  };
  const tokenizerConfig = {
    add_bos_token: false,
    add_prefix_space: false,
    added_tokens_decoder: Object.fromEntries(added.map(({ id, ...rest }) => [String(id), rest])),
    additional_special_tokens: ['<|im_start|>', '<|im_end|>'],
    bos_token: null,
    chat_template: CHAT_TEMPLATE,
    clean_up_tokenization_spaces: false,
    eos_token: '<|im_end|>',
    model_max_length: 32768,
    pad_token: '<|endoftext|>',
    tokenizer_class: 'PreTrainedTokenizerFast',
    unk_token: null,
  };
  mkdirSync(OUT, { recursive: true });
  const write = (name: string, value: unknown): void =>
    writeFileSync(OUT + name, JSON.stringify(value, null, 2) + '\n');
  write('tokenizer.json', tokenizer);
  write('tokenizer_config.json', tokenizerConfig);
  write('config.json', config);
  process.stdout.write(`wrote ${OUT}: ${vocab.size} tokens, ${merges.length} merges\n`);
}

main();
