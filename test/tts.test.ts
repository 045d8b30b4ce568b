/**
 * The real SherpaTts (sherpa-onnx OfflineTts, espeak-ng phonemizer) with the synthetic test
 * voices: test-tts-formant (a buzzy robot voice) and test-tts-echo (outputs phoneme ids x 0.001).
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_SYNTHESIZE_CHARS, SherpaTts } from '../electron/engines/tts';
import { EventHub } from '../electron/pipeline/events';
import { TimelineOutput } from '../electron/pipeline/speak/output';
import { serialSynthesizer } from '../electron/pipeline/speak/tts-queue';
import { Utterance } from '../electron/pipeline/speak/utterance';
import { PlayingSink } from '../electron/pipeline/speak/utterance-sink';
import { ClauseSplitter, type Clause } from '../electron/text/clauses';
import { toSpeakable } from '../electron/text/speakable';
import { MAX_SPOKEN_CHARS, splitForSpeech } from '../electron/text/speech-limits';
import { pickModel } from '../native-models/resolver';
import { MODEL_ROOTS, sleep } from './engine-fixtures';

const VOICE = { speakerId: 0, speed: 1 };
const REPLY =
  'The sun rose over the quiet hills. A small bird sang in the old oak tree. ' +
  'The farmer walked slowly to the red barn. He fed the cows, the goats and the hens. ' +
  'Then he sat down on a bench to rest. The day was warm and bright.';

let formant: SherpaTts;
let echo: SherpaTts;

before(async () => {
  formant = await SherpaTts.load(await pickModel('tts', MODEL_ROOTS));
  assert.equal(formant.info.id, 'test-tts-formant', 'the formant voice is the tts default');
  echo = await SherpaTts.load(await pickModel('tts', MODEL_ROOTS, 'test-tts-echo'));
});

function rms(x: Float32Array): number {
  let s = 0;
  for (const v of x) s += v * v;
  return Math.sqrt(s / x.length);
}

function clausesOf(text: string): Clause[] {
  const s = new ClauseSplitter();
  return [...s.push(text), ...s.flush()];
}

describe('SherpaTts with the formant voice', () => {
  test('synthesizes a clause as non-silent audio at the voice rate (22050 Hz)', async () => {
    assert.equal(formant.sampleRate, 22050);
    assert.equal(formant.info.sampleRate, 22050);
    const audio = await formant.synthesize('Hello there, how are you today?', VOICE);
    assert.ok(audio, 'no audio');
    const seconds = audio.length / formant.sampleRate;
    assert.ok(seconds > 0.5 && seconds < 10, `${seconds.toFixed(2)} s for one clause`);
    assert.ok(audio.every((v) => Number.isFinite(v) && Math.abs(v) <= 1), 'samples outside [-1, 1]');
    assert.ok(rms(audio) > 0.01, `RMS ${rms(audio)}`);
  });

  test('clause-by-clause synthesis: first audio long before the reply is done', async (tc) => {
    // The reply streams in word by word, as from the LLM; each finished clause is synthesized at once.
    const splitter = new ClauseSplitter();
    const queue: Clause[] = [];
    const audio: Float32Array[] = [];
    const t0 = performance.now();
    let firstAudioMs = -1;
    let textDoneMs = -1;
    let textDone = false;
    const speaker = (async () => {
      for (;;) {
        const c = queue.shift();
        if (!c) {
          if (textDone) return;
          await sleep(1);
          continue;
        }
        const a = await formant.synthesize(c.text, VOICE);
        assert.ok(a && a.length > 0, `no audio for "${c.text}"`);
        if (firstAudioMs < 0) firstAudioMs = performance.now() - t0;
        audio.push(a);
      }
    })();
    for (const w of REPLY.split(/(?<= )/)) {
      queue.push(...splitter.push(w));
      await sleep(3);
    }
    queue.push(...splitter.flush());
    textDoneMs = performance.now() - t0;
    textDone = true;
    await speaker;
    const doneMs = performance.now() - t0;

    tc.diagnostic(`first audio ${firstAudioMs.toFixed(1)} ms, text done ${textDoneMs.toFixed(1)} ms, all audio ${doneMs.toFixed(1)} ms`);
    assert.equal(audio.length, 6, 'one audio chunk per sentence');
    const total = audio.reduce((n, a) => n + a.length, 0);
    assert.ok(firstAudioMs >= 0 && firstAudioMs < textDoneMs, `first audio at ${firstAudioMs} ms, text done at ${textDoneMs} ms`);
    assert.ok(firstAudioMs < doneMs);
    assert.ok(audio[0]!.length < total, 'the first clause is only part of the reply');
    assert.ok(audio.every((a) => rms(a) > 0.01));
  });

  test('an abort right after starting resolves to null, and early', async (tc) => {
    const long = Array.from({ length: 20 }, () => REPLY).join(' ');
    let t = performance.now();
    const full = await formant.synthesize(long, VOICE);
    const fullMs = performance.now() - t;
    assert.ok(full && full.length > 0);

    const ac = new AbortController();
    t = performance.now();
    const p = formant.synthesize(long, { ...VOICE, signal: ac.signal });
    ac.abort();
    assert.equal(await p, null);
    const abortedMs = performance.now() - t;
    tc.diagnostic(`full synthesis ${fullMs.toFixed(1)} ms, aborted one resolved after ${abortedMs.toFixed(1)} ms`);
    assert.ok(abortedMs < fullMs / 2, `aborted synthesis took ${abortedMs.toFixed(1)} ms, the full one ${fullMs.toFixed(1)} ms`);

    // Already aborted: nothing is synthesized at all.
    assert.equal(await formant.synthesize('Hello.', { ...VOICE, signal: ac.signal }), null);
  });

  test('an abort between clauses: no sample after it', async () => {
    const clauses = clausesOf(REPLY);
    assert.equal(clauses.length, 6);
    const ac = new AbortController();
    const played: Float32Array[] = [];
    const results: (Float32Array | null)[] = [];
    for (const c of clauses) {
      const p = formant.synthesize(c.text, { ...VOICE, signal: ac.signal });
      // Barge-in while the third clause is being synthesized.
      if (c.index === 2) ac.abort();
      const a = await p;
      results.push(a);
      if (a) played.push(a);
    }
    assert.equal(played.length, 2, 'only the clauses finished before the abort are heard');
    assert.deepEqual(results.slice(2), [null, null, null, null]);
  });
});

describe('SherpaTts with the echo voice: what reaches the phonemizer', () => {
  test('markdown and URL cleanup happens before phonemization', async () => {
    const raw = '**Hello** https://example.com';
    const speakable = toSpeakable(raw);
    assert.equal(speakable, 'Hello example dot com');
    const cleaned = await echo.synthesize(speakable, VOICE);
    // The echo voice gives phoneme ids x 0.001: exact integers.
    assert.ok(cleaned!.every((v) => Math.abs(v * 1000 - Math.round(v * 1000)) < 1e-3));
    const plain = await echo.synthesize('Hello example dot com', VOICE);
    assert.deepEqual(ids(cleaned), ids(plain));
    // Without the cleanup the phonemizer would read out the markup and the address.
    const unclean = await echo.synthesize(raw, VOICE);
    assert.notDeepEqual(ids(unclean), ids(plain));
    assert.ok(ids(unclean).length > ids(plain).length);
  });
});

// Issue 24 (hostile inputs): a 20 MB answer chunk with no punctuation reached the voice as one
// text, and onnxruntime asked for 45 GB (47 GB in the report) and never answered.
describe('SherpaTts and overlong text', () => {
  /** The lengths of the texts that reach sherpa-onnx itself, while `fn` runs. */
  async function textsToSherpa<T>(tts: SherpaTts, fn: () => Promise<T>): Promise<{ result: T; lengths: number[] }> {
    const inner = (tts as unknown as { tts: { generateAsync: (o: { text: string }) => Promise<unknown> } }).tts;
    const real = inner.generateAsync;
    const lengths: number[] = [];
    inner.generateAsync = (o) => {
      lengths.push(o.text.length);
      return real.call(inner, o);
    };
    try {
      return { result: await fn(), lengths };
    } finally {
      inner.generateAsync = real;
    }
  }

  /** Megabytes the process's peak resident memory passed `rssBefore` (bytes) by. */
  function peakGrowthMb(rssBefore: number): number {
    return (process.resourceUsage().maxRSS * 1024 - rssBefore) / 2 ** 20;
  }

  test('a 20 MB text is refused with a clear error; nothing reaches the voice', { timeout: 60_000 }, async () => {
    const huge = 'a'.repeat(20_000_000);
    const rss = process.memoryUsage().rss;
    const { result, lengths } = await textsToSherpa(formant, () => formant.synthesize(huge, VOICE).then(() => null, (e: Error) => e));
    assert.ok(result instanceof Error);
    assert.match(result.message, /^Text too long to speak in one piece: 20,000,000 characters, the most is 20,000; cut it into clauses first\.$/);
    assert.deepEqual(lengths, []);
    assert.ok(peakGrowthMb(rss) < 100, `peak memory grew ${peakGrowthMb(rss).toFixed(0)} MB`);
    // The longest text it takes still goes through.
    assert.equal(MAX_SYNTHESIZE_CHARS, 20_000);
  });

  test('text over the clause limit reaches the voice a piece at a time; the audio is the pieces\' in order', async () => {
    const text = Array.from({ length: 300 }, (_, i) => `word${i % 10}`).join(' '); // 1,799 chars, no punctuation
    const { result: whole, lengths } = await textsToSherpa(echo, () => echo.synthesize(text, VOICE));
    assert.ok(lengths.length >= Math.ceil(text.length / MAX_SPOKEN_CHARS), `${lengths.length} calls`);
    assert.ok(lengths.every((n) => n <= MAX_SPOKEN_CHARS), `lengths ${lengths.join(', ')}`);
    const pieces: number[] = [];
    for (const p of splitForSpeech(text, MAX_SPOKEN_CHARS)) pieces.push(...ids(await echo.synthesize(text.slice(p.start, p.end), VOICE)));
    assert.deepEqual(ids(whole), pieces);
  });

  test('a 20 MB answer in one chunk, spoken: its first clause plays soon, no call gets more than a clause, memory stays bounded', { timeout: 120_000 }, async (t) => {
    const answer = 'a'.repeat(20_000_000);
    const rss = process.memoryUsage().rss;
    const t0 = performance.now();
    const events = new EventHub();
    const firstAudio = new Promise<number>((resolve) => events.on((e) => e.type === 'audio' && resolve(performance.now() - t0)));
    const { result, lengths } = await textsToSherpa(formant, async () => {
      const u = new Utterance(
        { kind: 'stream', write: async (onText) => onText(answer) },
        { tts: serialSynthesizer(formant), sink: new PlayingSink(new TimelineOutput()), clock: { now: () => performance.now() - t0 }, voice: () => VOICE, announce: { events, turn: 0 } },
      );
      const ms = await firstAudio;
      u.cancel(0);
      await u.done;
      return { ms, text: u.text.length };
    });
    const grew = peakGrowthMb(rss);
    t.diagnostic(`first audio after ${result.ms.toFixed(0)} ms; ${lengths.length} synthesis call(s), longest ${Math.max(...lengths)} chars; peak memory +${grew.toFixed(0)} MB`);
    assert.equal(result.text, answer.length);
    assert.ok(lengths.length >= 1 && lengths.every((n) => n <= 220), `lengths ${lengths.join(', ')}`);
    assert.ok(grew < 500, `peak memory grew ${grew.toFixed(0)} MB`);
  });
});

/** The echo voice's samples as the phoneme ids they carry. */
function ids(x: Float32Array | null): number[] {
  assert.ok(x && x.length > 0);
  return Array.from(x, (v) => Math.round(v * 1000));
}
