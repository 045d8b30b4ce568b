/**
 * Token tables for the layout stand-ins: a recognizer's BPE pieces, and the one-character phoneme
 * symbols of Piper and Kokoro voices (sherpa-onnx maps espeak-ng's IPA output through them).
 */

/** The word piece every stand-in recognizer hears once per decode. */
export const HEARD_WORD = '▁HELLO';

/**
 * `size` tokens: `head`, the pieces, then `tail` (NeMo puts its blank last, icefall first). The
 * pieces are the heard word, then '▁A'…'▁Z', 'A'…'Z', then numbered ones: the content does not
 * matter, only the count and that each is unique.
 */
export function bpeTokens(size: number, opts: { head?: string[]; tail?: string[]; word?: string }): string[] {
  const head = opts.head ?? [];
  const tail = opts.tail ?? [];
  const letters = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'];
  const pieces = [opts.word ?? HEARD_WORD, ...letters.map((l) => `▁${l}`), ...letters];
  const count = size - head.length - tail.length;
  for (let i = 0; pieces.length < count; i++) pieces.push(`▁W${i}`);
  return [...head, ...pieces.slice(0, count), ...tail];
}

/** Punctuation and the IPA symbols espeak-ng writes for English (each one code point). */
const PUNCTUATION = [...';:,.!?¡¿—…"«»“” '];
const IPA = [...'ɑɐɒæɓʙβɔɕçɗɖðʤəɘɚɛɜɝɞɟʄɡɠɢʛɦɧħɥʜɨɪʝɭɬɫɮʟɱɯɰŋɳɲɴøɵɸθœɶʘɹɺɾɻʀʁɽʂʃʈʧʉʊʋⱱʌɣɤʍχʎʏʑʐʒʔʡʕʢǀǁǂǃˈˌːˑʼʴʰʱʲʷˠˤ˞↓↑→↗↘ᵻ'];
const LATIN = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'];

/** tokens.txt: `symbol id` lines (sherpa-onnx reads a line with only an id as the space). */
export function tokensText(symbols: string[]): string {
  return symbols.map((s, i) => `${s} ${i}\n`).join('');
}

/** Piper's table: pad '_', bos '^', eos '$', then the symbols. */
export function piperSymbols(): string[] {
  return ['_', '^', '$', ...PUNCTUATION, ...LATIN.filter((c) => c === c.toLowerCase()), ...IPA];
}

/** Kokoro v0.19's table: pad '$', punctuation, Latin letters, IPA. */
export function kokoroSymbols(): string[] {
  return ['$', ...PUNCTUATION, ...LATIN, ...IPA];
}
