/**
 * Turn-taking on the real engines (Silero VAD, the test recognizer, stories260K, the formant voice)
 * over ../shared/speech, through `talk` exactly as a user runs it, plus live settings in-process.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readWavFile, writeWavFile } from '../electron/audio/wav';
import { FastForwardClock } from '../electron/pipeline/clock';
import { feedAudio } from '../electron/pipeline/run/feed';
import { loadEngines, type LoadedEngines } from '../electron/pipeline/load-engines';
import { TimelineOutput } from '../electron/pipeline/speak/output';
import type { TurnReport } from '../electron/pipeline/report';
import { VoicePipeline } from '../electron/pipeline/voice-pipeline';
import { DEFAULT_SETTINGS, mergeSettings, type Settings } from '../electron/settings/schema';
import { loadClip16k, MODEL_ROOTS } from './engine-fixtures';
import { MANIFEST, MODELS, SPEECH, runCli, tempDir } from './helpers';

const dir = tempDir('lva-turns-');
let n = 0;

/**
 * These tests are about the silence rule and barge-in, so the end-of-turn model (loaded from the shared
 * models) is off unless a test turns it on; it has its own tests in end-of-turn.test.ts.
 */
function settingsFile(patch: { endpointing?: object }): string {
  const file = path.join(dir, `settings-${n++}.json`);
  writeFileSync(file, JSON.stringify({ ...patch, endpointing: { turnModel: false, ...patch.endpointing } }));
  return file;
}

async function talk(input: string, settings: object, extra: string[] = [], quiet = true) {
  const report = path.join(dir, `report-${n++}.json`);
  const output = report.replace(/\.json$/, '.wav');
  const file = input.endsWith('.wav') ? input : path.join(SPEECH, `${input}.wav`);
  const res = await runCli('electron/cli/talk.ts', [
    '--input', file, '--models', MODELS, '--report', report, '--output', output, '--fast', ...(quiet ? ['--quiet'] : []), '--settings', settingsFile(settings), ...extra,
  ]);
  assert.equal(res.code, 0, `talk failed: ${res.stderr}`);
  const turns = (JSON.parse(readFileSync(report, 'utf8')) as { turns: TurnReport[] }).turns;
  return { turns, output, stdout: res.stdout };
}

const endOf = (clip: string, i: number) => MANIFEST[clip]!.speech[i]!.end * 1000;
const startOf = (clip: string, i: number) => MANIFEST[clip]!.speech[i]!.start * 1000;
const bargeIns = (turns: TurnReport[]) => turns.filter((t) => t.bargeIn !== null);

/** Every silence-ended turn ends silenceMs (±100) after the true end of its speech in the manifest. */
function checkEndpoints(clip: string, turns: TurnReport[], silenceMs: number, segmentOf: (t: TurnReport) => number) {
  for (const t of turns.filter((x) => x.endReason === 'silence')) {
    const wait = t.timings.endOfTurnMs - endOf(clip, segmentOf(t));
    assert.ok(wait >= silenceMs - 100 && wait <= silenceMs + 100, `${clip} turn ${t.index}: ended ${wait} ms after the speech (silenceMs ${silenceMs})`);
  }
}

describe('turn-taking on the real engines', () => {
  it('timer_pause, silenceMs 400: the turn is ended inside the pause', async () => {
    const { turns } = await talk('timer_pause', { endpointing: { silenceMs: 400 }, llm: { maxTokens: 48 } });
    const merged = turns.length === 1 && turns[0]!.mergedContinuation;
    assert.ok(turns.length === 2 || merged, `two turns or one merged, got ${JSON.stringify(turns.map((t) => t.userText))}`);
    assert.ok(turns[0]!.timings.endOfTurnMs < startOf('timer_pause', 1), 'the first part was ended before the user went on');
    if (turns.length === 2) {
      assert.equal(turns[0]!.mergedContinuation, false);
      checkEndpoints('timer_pause', turns, 400, (t) => t.index);
    }
  });

  it('timer_pause, silenceMs 1000: one turn with both parts, not merged', async () => {
    const { turns } = await talk('timer_pause', { endpointing: { silenceMs: 1000 }, llm: { maxTokens: 48 } });
    assert.equal(turns.length, 1);
    assert.equal(turns[0]!.mergedContinuation, false);
    assert.match(turns[0]!.userText, /timer.*minutes/);
    checkEndpoints('timer_pause', turns, 1000, () => 1);
  });

  for (const silenceMs of [400, 600, 1000]) {
    it(`two_turns, silenceMs ${silenceMs}: each turn ends silenceMs after the manifest's end of speech`, async () => {
      const { turns } = await talk('two_turns', { endpointing: { silenceMs }, llm: { maxTokens: 32 } });
      assert.equal(turns.length, 2);
      checkEndpoints('two_turns', turns, silenceMs, (t) => t.index);
    });
  }

  for (const echo of [null, '0.5:30']) {
    it(`interrupt${echo ? ` with --echo ${echo}` : ''}: one barge-in, at the user's speech; playback stops in time; history keeps what was heard`, async () => {
      const { turns, output } = await talk('interrupt', {}, echo ? ['--echo', echo] : []);
      assert.equal(bargeIns(turns).length, 1, JSON.stringify(turns.map((t) => [t.userText, t.bargeIn])));
      const [first, second] = turns;
      assert.ok(first && second, 'both requests are answered');
      assert.equal(first.interrupted, true);
      const speechStart = startOf('interrupt', 1);
      const limit = speechStart + DEFAULT_SETTINGS.bargeIn.minSpeechMs + 100;
      const stopped = first.bargeIn!.playbackStoppedMs;
      assert.ok(stopped >= speechStart && stopped <= limit, `playback stopped at ${stopped}, user spoke at ${speechStart}, limit ${limit}`);
      assert.ok(first.bargeIn!.detectedMs >= speechStart && first.bargeIn!.detectedMs <= limit);
      assert.ok(first.assistantText.startsWith(first.heardText), 'heardText is a prefix of the answer');
      assert.ok(first.heardText.length < first.assistantText.length, 'and shorter than it');
      assert.equal(second.interrupted, false);
      assert.match(second.userText, /time is it/);
      assert.ok(second.assistantText.length > 0);

      // OUT.wav: the answer sounds before the stop, then silence until the next answer.
      const wav = await readWavFile(output);
      const x = wav.channelData[0]!;
      const at = (ms: number) => Math.floor((ms / 1000) * wav.sampleRate);
      const energy = (a: number, b: number) => x.subarray(at(a), at(b)).reduce((s, v) => s + v * v, 0);
      assert.ok(energy(stopped - 300, stopped) > 0, 'the answer is playing just before the stop');
      assert.equal(energy(stopped + 1, second.timings.firstAudioMs! - 1), 0, 'silent from the stop to the next answer');
    });
  }

  it('story with --echo 0.5:30: the assistant never interrupts itself, and the whole answer plays', async () => {
    const { turns } = await talk('story', { llm: { maxTokens: 160 } }, ['--echo', '0.5:30']);
    assert.equal(turns.length, 1, JSON.stringify(turns.map((t) => t.userText)));
    assert.equal(bargeIns(turns).length, 0);
    assert.equal(turns[0]!.interrupted, false);
    assert.equal(turns[0]!.heardText, turns[0]!.assistantText);
    assert.ok(turns[0]!.timings.lastAudioMs! - turns[0]!.timings.firstAudioMs! > 5000, 'a long answer, all of it played');
  });

  it('push-to-talk over weather (--ptt 0.4-2.3): one turn, ended by the release, no silence wait', async () => {
    const { turns } = await talk('weather', { llm: { maxTokens: 32 } }, ['--ptt', '0.4-2.3']);
    assert.equal(turns.length, 1);
    assert.equal(turns[0]!.endReason, 'push-to-talk');
    const eot = turns[0]!.timings.endOfTurnMs;
    assert.ok(eot >= 2300 && eot <= 2350, `endOfTurnMs ${eot}`);
  });

  it('push-to-talk pressed while the assistant speaks interrupts it at once', async () => {
    const { turns } = await talk('two_turns', {}, ['--ptt', '0.4-2.2,5.1-6.8']);
    assert.equal(turns.length, 2);
    const b = turns[0]!.bargeIn;
    assert.ok(b, 'the first answer was interrupted');
    assert.ok(b.playbackStoppedMs >= 5100 && b.playbackStoppedMs <= 5150, `stopped at ${b.playbackStoppedMs}, the key went down at 5100`);
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
      const file = path.join(dir, 'bursts-idle.wav');
      await writeWavFile(file, addBursts(new Float32Array(16 * 6000), [1000, 2500, 4000], 150), 16000);
      const { turns } = await talk(file, {});
      assert.equal(turns.length, 0);
    });

    it('while the assistant speaks: no barge-in, the answer plays on in full', async () => {
      const file = path.join(dir, 'bursts-speaking.wav');
      const x = new Float32Array(16 * 12000);
      x.set(weather);
      // Longer than a turn needs (250 ms) but shorter than an interruption needs (400 ms).
      await writeWavFile(file, addBursts(x, [4500, 6500, 8500], 300), 16000);
      const { turns, stdout } = await talk(file, { llm: { maxTokens: 200 } }, [], false);
      assert.equal(turns.length, 1, JSON.stringify(turns.map((t) => t.userText)));
      // Each burst paused playback at once, and playback went on when it turned out to be nothing.
      const paused = stdout.match(/playback paused/g)?.length ?? 0;
      assert.ok(paused >= 1 && paused <= 3, stdout);
      assert.equal(stdout.match(/playback resumed/g)?.length, paused);
      assert.equal(turns[0]!.bargeIn, null);
      assert.equal(turns[0]!.heardText, turns[0]!.assistantText);
      assert.ok(turns[0]!.timings.lastAudioMs! > 9000, 'the answer was still playing over the bursts');
    });
  });
});

describe('settings apply live, to the next window, without reloading a model', () => {
  let engines: LoadedEngines;
  let weather: Float32Array;
  before(async () => {
    engines = await loadEngines(() => DEFAULT_SETTINGS, MODEL_ROOTS);
    weather = await loadClip16k('weather');
  });
  after(async () => {
    await engines.dispose();
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
