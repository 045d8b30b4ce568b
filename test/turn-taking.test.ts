/**
 * Turn-taking on the real engines (Silero VAD, the test recognizer, stories260K, the formant voice)
 * over ../shared/speech, run in process as `talk --fast` runs them (test/pipeline-run.ts) on engines
 * loaded once for the file, plus live settings. `talk` itself, as a command, is tested in talk.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FastForwardClock } from '../electron/pipeline/clock';
import type { PipelineEvent } from '../electron/pipeline/events';
import { feedAudio } from '../electron/pipeline/run/feed';
import { loadEngines, type LoadedEngines } from '../electron/pipeline/load-engines';
import { TimelineOutput } from '../electron/pipeline/speak/output';
import type { TurnReport } from '../electron/pipeline/report';
import { VoicePipeline } from '../electron/pipeline/voice-pipeline';
import { DEFAULT_SETTINGS, mergeSettings, type Settings } from '../electron/settings/schema';
import { loadClip16k, MODEL_ROOTS } from './engine-fixtures';
import { checkHeard } from './heard-check';
import { MANIFEST } from './helpers';
import { talkInProcess, type TalkOptions } from './pipeline-run';

let engines: LoadedEngines;
before(async () => {
  engines = await loadEngines(() => DEFAULT_SETTINGS, MODEL_ROOTS);
});
after(async () => {
  await engines?.dispose();
});

/**
 * These tests are about the silence rule and barge-in, so the end-of-turn model (loaded from the shared
 * models) is off unless a test turns it on; it has its own tests in end-of-turn.test.ts.
 */
function settingsOf(patch: { endpointing?: object; llm?: object }, ptt = false): Settings {
  const s = mergeSettings(DEFAULT_SETTINGS, { ...patch, endpointing: { turnModel: false, ...patch.endpointing } });
  return ptt ? { ...s, mode: 'push-to-talk' } : s;
}

async function talk(input: string | Float32Array, patch: { endpointing?: object; llm?: object }, opts: TalkOptions = {}) {
  const samples = typeof input === 'string' ? await loadClip16k(input) : input;
  const run = await talkInProcess(engines, samples, settingsOf(patch, opts.ptt !== undefined), opts);
  return { turns: run.reports, events: run.events, output: run.output };
}

const endOf = (clip: string, i: number) => MANIFEST[clip]!.speech[i]!.end * 1000;
const startOf = (clip: string, i: number) => MANIFEST[clip]!.speech[i]!.start * 1000;
const bargeIns = (turns: TurnReport[]) => turns.filter((t) => t.bargeIn !== null);
/** How many 32 ms input windows the pipeline heard in [fromMs, toMs) on its clock. */
const windowsBetween = (events: PipelineEvent[], fromMs: number, toMs: number) => events.filter((e) => e.type === 'vad' && e.t >= fromMs && e.t < toMs).length;

/**
 * Where on the input a turn was ended: the pipeline hears one VAD window per 32 ms of input, in
 * order, so the windows heard before its end-of-turn event place it in input time. Unlike the fast
 * clock, which runs on in real time while the engines work, this does not move on a busy machine.
 */
function endInputMs(events: PipelineEvent[], turn: number): number {
  return inputMsOf(events, (e) => e.type === 'end-of-turn' && e.turn === turn, `turn ${turn}'s end`);
}

/** The input time at which the first event `which` picks was sent. */
function inputMsOf(events: PipelineEvent[], which: (e: PipelineEvent, i: number) => boolean, what: string): number {
  const at = events.findIndex(which);
  assert.ok(at >= 0, `no event for ${what}`);
  return events.slice(0, at).filter((e) => e.type === 'vad').length * 32;
}

/**
 * Every turn given was ended by silence (the end-of-turn model is off and the clip goes quiet), and
 * ended silenceMs (±100) of input after the true end of its speech in the manifest.
 */
function checkEndpoints(clip: string, turns: TurnReport[], events: PipelineEvent[], silenceMs: number, segmentOf: (t: TurnReport) => number) {
  for (const t of turns) {
    assert.equal(t.endReason, 'silence', `${clip} turn ${t.index}: ended by ${t.endReason}`);
    const wait = endInputMs(events, t.index) - endOf(clip, segmentOf(t));
    assert.ok(wait >= silenceMs - 100 && wait <= silenceMs + 100, `${clip} turn ${t.index}: ended ${wait} ms of input after the speech (silenceMs ${silenceMs})`);
  }
}

describe('turn-taking on the real engines', () => {
  it('timer_pause, silenceMs 400: the turn is ended inside the pause', async () => {
    const { turns, events } = await talk('timer_pause', { endpointing: { silenceMs: 400 }, llm: { maxTokens: 48 } });
    const merged = turns.length === 1 && turns[0]!.mergedContinuation;
    assert.ok(turns.length === 2 || merged, `two turns or one merged, got ${JSON.stringify(turns.map((t) => t.userText))}`);
    const first = events.find((e) => e.type === 'end-of-turn')!;
    assert.ok(endInputMs(events, first.turn) < startOf('timer_pause', 1), 'the first part was ended before the user went on');
    if (turns.length === 2) {
      assert.equal(turns[0]!.mergedContinuation, false);
      checkEndpoints('timer_pause', turns, events, 400, (t) => t.index);
    }
  });

  it('timer_pause, silenceMs 1000: one turn with both parts, not merged', async () => {
    const { turns, events } = await talk('timer_pause', { endpointing: { silenceMs: 1000 }, llm: { maxTokens: 48 } });
    assert.equal(turns.length, 1);
    assert.equal(turns[0]!.mergedContinuation, false);
    assert.match(turns[0]!.userText, /timer.*minutes/);
    checkEndpoints('timer_pause', turns, events, 1000, () => 1);
  });

  for (const silenceMs of [400, 600, 1000]) {
    it(`two_turns, silenceMs ${silenceMs}: each turn ends silenceMs after the manifest's end of speech`, async () => {
      const { turns, events } = await talk('two_turns', { endpointing: { silenceMs }, llm: { maxTokens: 32 } });
      assert.equal(turns.length, 2);
      checkEndpoints('two_turns', turns, events, silenceMs, (t) => t.index);
    });
  }

  for (const echo of [null, { gain: 0.5, delayMs: 30 }]) {
    it(`interrupt${echo ? ' with --echo 0.5:30' : ''}: one barge-in, at the user's speech; playback stops in time; history keeps what was heard`, async () => {
      const { turns, events, output } = await talk('interrupt', {}, echo ? { echo } : {});
      assert.equal(bargeIns(turns).length, 1, JSON.stringify(turns.map((t) => [t.userText, t.bargeIn])));
      const [first, second] = turns;
      assert.ok(first && second, 'both requests are answered');
      assert.equal(first.interrupted, true);
      // In input time (windows heard), which a busy machine does not shift as it does the fast clock.
      const speechStart = startOf('interrupt', 1);
      const limit = speechStart + DEFAULT_SETTINGS.bargeIn.minSpeechMs + 100;
      const stopped = first.bargeIn!.playbackStoppedMs;
      const cut = events.findIndex((e) => e.type === 'interrupted' && e.turn === first.index);
      // Playback stopped at the pause the barge-in confirmed (a pause that resumed before it was none).
      let pause = cut - 1;
      while (pause >= 0 && !(events[pause]!.type === 'playback' && ['paused', 'resumed'].includes((events[pause] as { action: string }).action))) pause--;
      const held = pause >= 0 && (events[pause] as { action: string }).action === 'paused';
      const pausedAt = inputMsOf(events, (_e, i) => i === (held ? pause : cut), 'the stop');
      const detectedAt = inputMsOf(events, (_e, i) => i === cut, 'the barge-in');
      assert.ok(pausedAt >= speechStart && pausedAt <= limit, `playback stopped at ${pausedAt} ms of input, user spoke at ${speechStart}, limit ${limit}`);
      assert.ok(detectedAt >= pausedAt && detectedAt <= limit, `barge-in confirmed at ${detectedAt} ms of input, limit ${limit}`);
      // Exactly the clauses played before the stop and the words reached in the one cut, never empty.
      checkHeard(first, events, 'the interrupted answer');
      assert.ok(first.heardText.length < first.assistantText.length, 'and shorter than it');
      assert.equal(second.interrupted, false);
      assert.match(second.userText, /time is it/);
      assert.ok(second.assistantText.length > 0);

      // What talk writes to OUT.wav: the answer sounds before the stop, then silence until the next answer.
      const rate = engines.tts.sampleRate;
      const at = (ms: number) => Math.floor((ms / 1000) * rate);
      const energy = (a: number, b: number) => output.renderRange(rate, at(a), at(b) - at(a)).reduce((s, v) => s + v * v, 0);
      assert.ok(energy(stopped - 300, stopped) > 0, 'the answer is playing just before the stop');
      assert.equal(energy(stopped + 1, second.timings.firstAudioMs! - 1), 0, 'silent from the stop to the next answer');
    });
  }

  it('story with --echo 0.5:30: the assistant never interrupts itself, and the whole answer plays', async () => {
    const { turns } = await talk('story', { llm: { maxTokens: 160 } }, { echo: { gain: 0.5, delayMs: 30 } });
    assert.equal(turns.length, 1, JSON.stringify(turns.map((t) => t.userText)));
    assert.equal(bargeIns(turns).length, 0);
    assert.equal(turns[0]!.interrupted, false);
    assert.equal(turns[0]!.heardText, turns[0]!.assistantText);
    assert.ok(turns[0]!.timings.lastAudioMs! - turns[0]!.timings.firstAudioMs! > 5000, 'a long answer, all of it played');
  });

  it('push-to-talk over weather (--ptt 0.4-2.3): one turn, ended by the release, no silence wait', async () => {
    const { turns, events } = await talk('weather', { llm: { maxTokens: 32 } }, { ptt: [[400, 2300]] });
    assert.equal(turns.length, 1);
    assert.equal(turns[0]!.endReason, 'push-to-talk');
    const eot = turns[0]!.timings.endOfTurnMs;
    // Ended on the first window after the release, however long the engines took on this machine.
    assert.ok(eot >= 2300, `endOfTurnMs ${eot}`);
    assert.ok(windowsBetween(events, 2300, eot) <= 1, `${windowsBetween(events, 2300, eot)} windows heard between the release and the end of the turn`);
  });

  it('push-to-talk pressed while the assistant speaks interrupts it at once', async () => {
    const { turns, events } = await talk('two_turns', {}, { ptt: [[400, 2200], [5100, 6800]] });
    assert.equal(turns.length, 2);
    const b = turns[0]!.bargeIn;
    assert.ok(b, 'the first answer was interrupted');
    // Stopped on the window the key went down in: no later window was heard with the answer playing.
    assert.ok(b.playbackStoppedMs >= 5100, `stopped at ${b.playbackStoppedMs}, the key went down at 5100`);
    assert.ok(windowsBetween(events, 5100, b.playbackStoppedMs) <= 1, `${windowsBetween(events, 5100, b.playbackStoppedMs)} windows heard between the key and the stop`);
    checkHeard(turns[0]!, events, 'the answer cut by the key');
    assert.equal(turns[1]!.endReason, 'push-to-talk');
  });

  describe('short noise bursts under minSpeechMs', () => {
    let weather: Float32Array;
    before(async () => {
      weather = await loadClip16k('weather');
    });
    /** Bursts of real speech (a slice of `weather`) of `lenMs`, at the given times (ms), into `x`. */
    const addBursts = (x: Float32Array, times: number[], lenMs: number) => {
      const src = weather.subarray(16 * 1000, 16 * (1000 + lenMs));
      for (const t of times) x.set(src, 16 * t);
      return x;
    };

    it('while idle: no turn', async () => {
      const { turns } = await talk(addBursts(new Float32Array(16 * 6000), [1000, 2500, 4000], 150), {});
      assert.equal(turns.length, 0);
    });

    it('while the assistant speaks: no barge-in, the answer plays on in full', async () => {
      const x = new Float32Array(16 * 12000);
      x.set(weather);
      // Longer than a turn needs (250 ms) but shorter than an interruption needs (400 ms).
      const bursts = [4500, 6500, 8500];
      const { turns, events } = await talk(addBursts(x, bursts, 300), { llm: { maxTokens: 200 } });
      assert.equal(turns.length, 1, JSON.stringify(turns.map((t) => t.userText)));
      // Playback paused only while a burst was heard (at its onset; again on its words, when the
      // onset hold ended before they came), and went on each time it turned out to be nothing.
      const playback = events.flatMap((e, i) => (e.type === 'playback' ? [{ action: e.action, inputMs: inputMsOf(events, (_, j) => j === i, e.action) }] : []));
      const pauses = playback.filter((p) => p.action === 'paused');
      const seen = JSON.stringify(playback);
      assert.ok(pauses.length >= 1, seen);
      for (const p of pauses) assert.ok(bursts.some((t) => p.inputMs >= t - 32 && p.inputMs <= t + 300 + 64), `paused at ${p.inputMs} ms of input, outside every burst: ${seen}`);
      assert.equal(playback.filter((p) => p.action === 'resumed').length, pauses.length, seen);
      assert.equal(turns[0]!.bargeIn, null);
      assert.equal(turns[0]!.heardText, turns[0]!.assistantText);
      assert.ok(turns[0]!.timings.lastAudioMs! > 9000, 'the answer was still playing over the bursts');
    });
  });
});

describe('settings apply live, to the next window, without reloading a model', () => {
  let weather: Float32Array;
  before(async () => {
    weather = await loadClip16k('weather');
  });

  it('a silence threshold and a VAD threshold changed mid-turn take effect at once', async () => {
    let settings: Settings = mergeSettings(DEFAULT_SETTINGS, { llm: { maxTokens: 16 }, endpointing: { turnModel: false } });
    const clock = new FastForwardClock();
    const output = new TimelineOutput();
    const pipeline = new VoicePipeline(engines, output, clock, () => settings);
    // One entry per 32 ms window, in order: entry k is the window ending at (k + 1) * 32 ms of input.
    const thresholds: number[] = [];
    pipeline.events.on((e) => {
      if (e.type === 'vad') thresholds.push(e.threshold);
    });
    const vad = engines.vad;
    const vadLoad = engines.vad.info.loadMs;
    await feedAudio(pipeline, weather, clock, output, {
      fast: true,
      beforeFrame: (_f, startMs) => {
        if (startMs === 1024) settings = mergeSettings(settings, { endpointing: { silenceMs: 1500, vadThreshold: 0.6 } });
      },
    });
    await pipeline.drain();
    pipeline.settle();
    assert.equal(pipeline.reports.length, 1);
    const wait = pipeline.reports[0]!.timings.endOfTurnMs - endOf('weather', 0);
    assert.ok(wait >= 1400 && wait <= 1600, `ended ${wait} ms after the speech (silenceMs 1500 from 1.0 s on)`);
    // The window after the change already used the new threshold; the same detector kept running.
    assert.equal(thresholds[1056 / 32 - 1], 0.6);
    assert.equal(thresholds[1024 / 32 - 1], 0.5);
    assert.equal(engines.vad, vad);
    assert.equal(engines.vad.info.loadMs, vadLoad);
  });
});
