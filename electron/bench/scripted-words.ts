/**
 * BENCHMARK ONLY (`bench --real-size`), NOT THE APP'S ENGINES: the real-size stand-ins compute
 * what the real models compute, but with random weights what they say is noise. These wrappers
 * keep every bit of the engines' work and replace only the words, so the pipeline's decisions
 * (commands, acknowledgements, the prompt the next turn sends) see real words:
 * - the recognizer decodes every sample for real; its partial and final transcripts are replaced
 *   by the clip's manifest text (the segments heard so far on the pipeline clock);
 * - the language model generates its tokens for real, exactly `tokens` per answer; its text is
 *   replaced by a scripted answer cut to the same token count, handed on as the tokens come.
 * The voice needs no wrapper: it speaks the scripted text at the stand-in's calibrated pace.
 */
import type { ChatMessage, LanguageModel } from '../engines/llm-types';
import type { PeekOptions, SpeechRecognizer, SttSession } from '../engines/stt';
import type { Clock } from '../pipeline/clock';
import { CUT_MARK } from '../pipeline/respond/conversation';

/** One spoken segment of a clip, in ms on the clip's (the pipeline's) clock. */
export interface SpokenSegment {
  text: string;
  startMs: number;
  endMs: number;
}

/** The words of `segments` heard between `fromMs` and `nowMs`: whole segments that ended, a share of the words of one under way. */
export function wordsHeard(segments: readonly SpokenSegment[], fromMs: number, nowMs: number): string {
  const words: string[] = [];
  for (const s of segments) {
    if (s.endMs < fromMs || s.startMs > nowMs) continue;
    const all = s.text.split(/\s+/).filter(Boolean);
    const share = nowMs >= s.endMs ? 1 : (nowMs - s.startMs) / Math.max(1, s.endMs - s.startMs);
    words.push(...all.slice(0, Math.floor(all.length * share)));
  }
  return words.join(' ');
}

/** How far before a session's start a segment may begin and still be its words (the onset hold and the VAD's lag). */
const ONSET_SLACK_MS = 600;

export function manifestWordsRecognizer(inner: SpeechRecognizer, segments: readonly SpokenSegment[], clock: Clock): SpeechRecognizer {
  const wrap = (s: SttSession, startedMs: number): SttSession => {
    const heard = () => wordsHeard(segments, startedMs - ONSET_SLACK_MS, clock.now());
    return {
      accept: (samples) => s.accept(samples),
      finish: async () => (await s.finish(), heard()),
      abort: () => s.abort(),
      ...(s.peek ? { peek: async (opts?: PeekOptions) => (await s.peek!(opts), heard()) } : {}),
    };
  };
  return {
    streaming: inner.streaming,
    leadInMs: inner.leadInMs,
    info: inner.info,
    get busy() {
      return inner.busy;
    },
    get decodeMs() {
      return inner.decodeMs;
    },
    createSession: (onPartial) => {
      const startedMs = clock.now();
      return wrap(
        inner.createSession(() => onPartial(wordsHeard(segments, startedMs - ONSET_SLACK_MS, clock.now()))),
        startedMs,
      );
    },
  };
}

/** Spoken answers of the length a voice assistant gives, cut to the token count by scriptedAnswer. */
export const SCRIPTED_ANSWERS = [
  "It's mostly sunny today with a light breeze from the west. The high will be around twenty-two degrees this afternoon, and it cools down to about fourteen tonight. There's a small chance of a shower after midnight, so if you're heading out late, a light jacket would be a good idea. Tomorrow looks much the same, a little warmer.",
  'Once upon a time, a little dragon named Ember lived at the edge of a quiet forest. Ember could not breathe fire like the other dragons; only warm puffs of steam came out. One winter night the village below lost its fires in a storm, and Ember flew down and warmed every house until morning. From then on, nobody laughed at the steam.',
  "Sure. The quickest way to boil an egg is to put it in a pot of cold water, bring the water to a boil, then turn off the heat and cover the pot. Leave it for about nine minutes for a firm yolk, or six for a soft one. Then move it into cold water so it stops cooking and peels more easily.",
  "Paris is the capital of France and its largest city, with a little over two million people in the city itself and about twelve million in the wider region. It sits on the river Seine in the north of the country. It's known for the Eiffel Tower, the Louvre, its cafes and its food, and it hosted the summer Olympics in twenty twenty-four.",
];

/** The first `tokens` tokens' worth of `answer` (whole words), as `countTokens` counts them. */
export function scriptedAnswer(answer: string, tokens: number, countTokens: (text: string) => number): string {
  const words = answer.split(' ');
  let lo = 0;
  let hi = words.length;
  // The longest prefix of words within the count (token counts grow with the words).
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (countTokens(words.slice(0, mid).join(' ')) <= tokens) lo = mid;
    else hi = mid - 1;
  }
  return words.slice(0, lo).join(' ');
}

/** Real generation, scripted words: each answer is SCRIPTED_ANSWERS in turn, handed on in step with the tokens generated. */
export function scriptedTextModel(inner: LanguageModel, tokens: number): LanguageModel {
  let next = 0;
  // Cut once per scripted answer, before any turn: tokenizing inside generate() would count in the model's first-token time.
  const scripts = SCRIPTED_ANSWERS.map((answer) => {
    const words = scriptedAnswer(answer, tokens, (t) => inner.countTokens(t)).split(' ');
    // Token counts at the end of each word, to hand a word on once the model has generated that many tokens.
    return { words, ends: words.map((_, i) => inner.countTokens(words.slice(0, i + 1).join(' '))) };
  });
  // What the model really wrote for each scripted answer handed on: the model is shown its own words in
  // later prompts, as the app shows a real model, so what it already holds in its context still matches.
  const written = new Map<string, string>();
  const asWritten = (messages: readonly ChatMessage[]): ChatMessage[] =>
    messages.map((m) => {
      if (m.role !== 'assistant') return m;
      const whole = written.get(m.text);
      if (whole !== undefined) return { ...m, text: whole };
      // An answer cut where the user stopped it (history marks it CUT_MARK): the same share of what the model wrote, marked so.
      const cut = m.text.endsWith(CUT_MARK) ? m.text.slice(0, -CUT_MARK.length) : m.text;
      const mark = cut === m.text ? '' : CUT_MARK;
      for (const [said, real] of written) if (cut && said.startsWith(cut)) return { ...m, text: real.slice(0, Math.round((real.length * cut.length) / said.length)) + mark };
      return m;
    });
  return {
    get info() {
      return inner.info;
    },
    ...(inner.tokenUsage ? { tokenUsage: () => inner.tokenUsage!() } : {}),
    ...(inner.prefill ? { prefill: (messages, tools) => inner.prefill!(asWritten(messages), tools) } : {}),
    async generate(messages, opts) {
      const { words, ends } = scripts[next++ % scripts.length]!;
      let generated = 0;
      let said = 0;
      let text = '';
      const say = (upTo: number) => {
        for (; said < upTo; said++) {
          const delta = (said === 0 ? '' : ' ') + words[said]!;
          text += delta;
          opts.onText(delta);
        }
      };
      const result = await inner.generate(asWritten(messages), {
        ...opts,
        maxTokens: tokens,
        onText: () => {
          generated++;
          let upTo = said;
          while (upTo < words.length && ends[upTo]! <= generated) upTo++;
          say(upTo);
        },
      });
      // The model's last token may come in the chunk node-llama-cpp holds back until the end.
      if (result.stopReason !== 'abort' && !opts.signal?.aborted) say(words.length);
      if (text) written.set(text, result.text);
      return { ...result, text };
    },
    countTokens: (text) => inner.countTokens(text),
    dispose: () => inner.dispose(),
  };
}
