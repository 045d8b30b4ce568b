/**
 * Utterances, their sinks and the shared synthesis queue, on scripted timelines. The voice here is a
 * SCRIPTED stand-in (a tone whose length follows the text, made after a set delay): it controls
 * timing only; the real voice engine is tested in tts.test.ts and through the pipeline.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SpeechSynthesizer } from '../electron/engines/tts';
import type { Clock } from '../electron/pipeline/clock';
import { EventHub, type PipelineEvent } from '../electron/pipeline/events';
import { TimelineOutput } from '../electron/pipeline/speak/output';
import { serialSynthesizer } from '../electron/pipeline/speak/tts-queue';
import { Utterance, type UtteranceSource } from '../electron/pipeline/speak/utterance';
import { HeldSink, PlayingSink, type UtteranceSink } from '../electron/pipeline/speak/utterance-sink';
import { MAX_SPOKEN_CHARS } from '../electron/text/speech-limits';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A clock the test moves by hand. */
class ManualClock implements Clock {
  t = 0;
  now(): number {
    return this.t;
  }
}

/** 10 ms of tone per character, after `delayMs`; logs what it was asked and when each call ran. */
function scriptedVoice(delayMs = 0) {
  const calls: { text: string; from: number; to: number }[] = [];
  let running = 0;
  let overlapped = false;
  const tts: SpeechSynthesizer = {
    sampleRate: 16000,
    info: { id: 'scripted-voice', sampleRate: 16000, numSpeakers: 1, loadMs: 0 },
    async synthesize(text, opts) {
      if (++running > 1) overlapped = true;
      const from = performance.now();
      await sleep(delayMs);
      running--;
      calls.push({ text, from, to: performance.now() });
      if (text.includes('FAIL')) throw new Error('cannot say that');
      if (opts.signal?.aborted) return null;
      return new Float32Array(text.length * 160).fill(0.1);
    },
  };
  return { tts, calls, overlapped: () => overlapped };
}

function make(source: UtteranceSource, opts: { sink?: (out: TimelineOutput) => UtteranceSink; delayMs?: number; onSourceError?: (e: Error) => void } = {}) {
  const clock = new ManualClock();
  const output = new TimelineOutput();
  const voice = scriptedVoice(opts.delayMs);
  const events = new EventHub();
  const log: PipelineEvent[] = [];
  events.on((e) => log.push(e));
  const sink = opts.sink?.(output) ?? new PlayingSink(output);
  const u = new Utterance(source, {
    tts: voice.tts,
    sink,
    clock,
    voice: () => ({ speakerId: 0, speed: 1 }),
    announce: { events, turn: 7 },
    ...(opts.onSourceError ? { onSourceError: opts.onSourceError } : {}),
  });
  return { u, clock, output, voice, log, sink };
}

describe('utterance (scripted voice)', () => {
  it('says a fixed text clause by clause, in order, and announces each clause and its audio for its turn', async () => {
    const { u, output, voice, log } = make({ kind: 'text', text: 'Your timer is done. It rang at noon.' });
    await u.done;
    assert.deepEqual(voice.calls.map((c) => c.text), ['Your timer is done.', 'It rang at noon.']);
    assert.deepEqual(u.audioSpan, { from: 0, to: 350 });
    assert.equal(output.queuedTo, 350);
    assert.equal(u.heardText, 'Your timer is done. It rang at noon.');
    assert.deepEqual(log.map((e) => `${e.type}:${'turn' in e ? e.turn : ''}`), ['clause:7', 'clause:7', 'audio:7', 'audio:7']);
    assert.equal(u.busy, false);
  });

  it('speaks a stream while it is still being written, and after cancel() nothing more is made or played', async () => {
    let release!: () => void;
    const more = new Promise<void>((r) => (release = r));
    let aborted = false;
    const { u, clock, output, voice } = make({
      kind: 'stream',
      write: async (onText, signal) => {
        onText('First part is here. ');
        await more;
        aborted = signal.aborted;
        onText('Second part never plays.');
      },
    });
    while (output.queuedTo === 0) await sleep(1);
    assert.equal(u.busy, true, 'still writing');
    assert.equal(voice.calls.length, 1, 'the first clause was spoken before the source finished');
    clock.t = 100; // 100 ms of the 190 ms clause played
    const heard = u.cancel(output.position(clock.t));
    release();
    await u.done;
    assert.equal(aborted, true, 'the source saw the abort');
    assert.equal(heard, 'First part');
    assert.equal(u.heardText, 'First part');
    assert.equal(u.interrupted, true);
    assert.equal(output.queuedTo, 190, 'nothing of it was queued after cancel()');
  });

  it('plays prepared audio at once, without the voice engine', async () => {
    const { u, output, voice } = make({ kind: 'audio', text: 'One moment.', samples: new Float32Array(1600), sampleRate: 16000 });
    assert.equal(output.queuedTo, 100, 'queued synchronously');
    await u.done;
    assert.equal(voice.calls.length, 0);
    assert.equal(u.heardText, 'One moment.');
  });

  it('still speaks what was written when its source fails, and reports the failure once', async () => {
    const errors: string[] = [];
    const { u, voice } = make(
      {
        kind: 'stream',
        write: async (onText) => {
          onText('Here is half. And');
          throw new Error('model crashed');
        },
      },
      { onSourceError: (e) => errors.push(e.message) },
    );
    await u.done;
    assert.deepEqual(errors, ['model crashed']);
    assert.deepEqual(voice.calls.map((c) => c.text), ['Here is half.'], 'the unfinished tail is not spoken');
  });

  it('skips a clause the voice cannot say, with a notice, and goes on', async () => {
    const { u, voice, log } = make({ kind: 'text', text: 'Fine here. FAIL this one. Fine again.' });
    await u.done;
    assert.equal(voice.calls.length, 3);
    assert.equal(log.filter((e) => e.type === 'audio').length, 2);
    assert.ok(log.some((e) => e.type === 'notice' && e.message.includes('FAIL this one')));
  });
});

describe('an utterance of a hostile answer (issue 24)', () => {
  it('one word of 256 kB in 64-character deltas: the voice gets clause-sized texts from the first one on, and the whole answer is kept', async () => {
    const answer = 'a'.repeat(256 * 1024);
    const { u, voice, output } = make({
      kind: 'stream',
      write: async (onText) => {
        for (let i = 0; i < answer.length; i += 64) onText(answer.slice(i, i + 64));
      },
    });
    while (u.audioSpan === null) await sleep(1);
    const first = voice.calls[0]!.text;
    assert.equal(first, 'a'.repeat(220), 'the first clause is cut where the limit falls');
    u.cancel(output.queuedTo / 2);
    await u.done;
    assert.ok(voice.calls.every((c) => c.text.length <= MAX_SPOKEN_CHARS));
    assert.equal(u.text, answer);
    assert.equal(u.heardText, '', 'half a clause of one word is no whole word heard');
  });
});

describe('utterance sinks', () => {
  it('a held sink keeps the audio back until released, then plays it in order from the release', async () => {
    const { u, clock, output, sink } = make({ kind: 'text', text: 'Prepared answer. Ready early.' }, { sink: (o) => new HeldSink(o) });
    await u.done;
    const held = sink as HeldSink;
    assert.equal(output.queuedTo, 0, 'nothing reached the output');
    assert.equal(u.audioSpan, null, 'nothing scheduled yet');
    assert.ok(Math.abs(held.heldMs - 280) < 1e-9, `${held.heldMs}`);
    clock.t = 5000;
    held.release(clock.t);
    assert.deepEqual(u.audioSpan, { from: 0, to: 280 });
    assert.equal(u.times.firstAudioMs, 5000, 'it plays from the release');
    assert.equal(held.holding, false);
  });

  it('a held sink passes audio straight through once released', async () => {
    const { u, output, sink } = make({ kind: 'text', text: 'One. Two. Three.' }, { sink: (o) => new HeldSink(o), delayMs: 15 });
    while (output.queuedTo === 0 && (sink as HeldSink).heldMs === 0) await sleep(1);
    (sink as HeldSink).release(0);
    await u.done;
    assert.equal(output.queuedTo, 140);
  });

  it('a dropped held sink never plays, also what is made after the drop', async () => {
    const { u, output, sink } = make({ kind: 'text', text: 'Never heard. Not this either.' }, { sink: (o) => new HeldSink(o), delayMs: 10 });
    (sink as HeldSink).drop();
    (sink as HeldSink).release(0);
    await u.done;
    assert.equal(output.queuedTo, 0);
    assert.equal(u.audioSpan, null);
  });

  it('discard() drops what the sink held: nothing plays, nothing was heard', async () => {
    const { u, output, sink } = make({ kind: 'text', text: 'Held. Then dropped.' }, { sink: (o) => new HeldSink(o) });
    await u.done;
    u.discard();
    (sink as HeldSink).release(0);
    assert.equal(output.queuedTo, 0);
    assert.equal(u.heardText, '');
    assert.equal(u.discarded, true);
  });
});

describe('the shared synthesis queue', () => {
  it('runs one synthesis at a time, in the order asked, and a failure does not block the next', async () => {
    const voice = scriptedVoice(15);
    const tts = serialSynthesizer(voice.tts);
    const results = await Promise.allSettled([
      tts.synthesize('first', { speakerId: 0, speed: 1 }),
      tts.synthesize('FAIL', { speakerId: 0, speed: 1 }),
      tts.synthesize('third', { speakerId: 0, speed: 1 }),
    ]);
    assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.deepEqual(voice.calls.map((c) => c.text), ['first', 'FAIL', 'third']);
    assert.equal(voice.overlapped(), false);
    for (let i = 1; i < voice.calls.length; i++) assert.ok(voice.calls[i]!.from >= voice.calls[i - 1]!.to);
  });

  it('two utterances sharing it never synthesize side by side', async () => {
    const voice = scriptedVoice(5);
    const tts = serialSynthesizer(voice.tts);
    const clock = new ManualClock();
    const output = new TimelineOutput();
    const deps = { tts, clock, voice: () => ({ speakerId: 0, speed: 1 }) };
    const a = new Utterance({ kind: 'text', text: 'Alpha one. Alpha two.' }, { ...deps, sink: new PlayingSink(output) });
    const b = new Utterance({ kind: 'text', text: 'Beta one. Beta two.' }, { ...deps, sink: new PlayingSink(output) });
    await Promise.all([a.done, b.done]);
    assert.equal(voice.overlapped(), false);
    assert.equal(voice.calls.length, 4);
  });
});
