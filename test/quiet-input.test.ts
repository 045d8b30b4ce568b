/**
 * A quiet microphone loses no words: `weather` made 20 and 30 dB quieter (and as a quiet 44.1 kHz
 * stereo recording) gives the same words as at full level, with its speech end where the manifest
 * has it, on the real engines (Silero VAD, both test recognizers) through the whole pipeline. The
 * quiet variants are made here from the real clip, as a 16-bit microphone would deliver them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { resample, toMono16k } from '../electron/audio/resample';
import type { DecodedAudio } from '../electron/audio/wav';
import { MAX_GAIN_DB } from '../electron/pipeline/listen/auto-gain';
import { FastForwardClock } from '../electron/pipeline/clock';
import { feedAudio } from '../electron/pipeline/run/feed';
import { loadEngines, type LoadedEngines } from '../electron/pipeline/load-engines';
import { TimelineOutput } from '../electron/pipeline/speak/output';
import type { TurnReport } from '../electron/pipeline/report';
import { VoicePipeline } from '../electron/pipeline/voice-pipeline';
import { DEFAULT_SETTINGS, mergeSettings, type Settings } from '../electron/settings/schema';
import { clip, loadClip16k, MODEL_ROOTS, words } from './engine-fixtures';

const WEATHER = clip('weather').speech[0]!;
const END_MS = WEATHER.end * 1000;
const START_MS = WEATHER.start * 1000;

/** As a 16-bit capture delivers it: quantized to 1/32768. */
const s16 = (x: Float32Array) => x.map((v) => Math.round(v * 32767) / 32767);
const scaled = (x: Float32Array, db: number) => s16(x.map((v) => v * 10 ** (db / 20)));
const peakDb = (x: Float32Array) => 20 * Math.log10(x.reduce((m, v) => Math.max(m, Math.abs(v)), 0));

interface Run {
  reports: TurnReport[];
  /** The input gain of every 32 ms window, from the pipeline's 'vad' events. */
  gains: number[];
}

async function talk(engines: LoadedEngines, settings: Settings, samples: Float32Array, ptt?: [number, number]): Promise<Run> {
  const clock = new FastForwardClock();
  const output = new TimelineOutput();
  const pipeline = new VoicePipeline(engines, output, clock, () => settings);
  const gains: number[] = [];
  pipeline.events.on((e) => {
    if (e.type === 'vad') gains.push(e.gainDb);
  });
  let held = false;
  await feedAudio(pipeline, samples, clock, output, {
    fast: true,
    beforeFrame: (_f, startMs) => {
      if (!ptt) return;
      const down = startMs >= ptt[0] && startMs < ptt[1];
      if (down !== held) pipeline.pushToTalk((held = down));
    },
  });
  await pipeline.drain();
  pipeline.settle();
  return { reports: pipeline.reports, gains };
}

let weather: Float32Array;
before(async () => {
  weather = await loadClip16k('weather');
});

for (const stt of ['test-stt-espeak-ctc-streaming', 'test-stt-espeak-ctc']) {
  describe(`quiet input, ${stt}`, () => {
    const settings = mergeSettings(DEFAULT_SETTINGS, { llm: { maxTokens: 16 }, models: { stt } });
    let engines: LoadedEngines;
    let full: Run;
    before(async () => {
      engines = await loadEngines(() => settings, MODEL_ROOTS);
      full = await talk(engines, settings, weather);
    });
    after(async () => {
      await engines.dispose();
    });

    /** One turn with the manifest's words (which the full-level clip also gives), placed where the manifest has it. */
    function checkTurn(run: Run, what: string): TurnReport {
      assert.equal(run.reports.length, 1, `${what}: ${JSON.stringify(run.reports.map((r) => r.userText))}`);
      const r = run.reports[0]!;
      assert.deepEqual(words(r.userText), words(WEATHER.text), `${what}: heard "${r.userText}"`);
      assert.deepEqual(words(r.userText), words(full.reports[0]!.userText), `${what}: same words as at full level`);
      const { speechStartMs, speechEndMs } = r.timings;
      assert.ok(Math.abs(speechEndMs - END_MS) <= 100, `${what}: speech end ${speechEndMs} ms, manifest ${END_MS}`);
      assert.ok(Math.abs(speechStartMs - START_MS) <= 100, `${what}: speech start ${speechStartMs} ms, manifest ${START_MS}`);
      return r;
    }

    it('at full level: the words, and no gain once the voice is heard (it does not fight a gain control before it)', () => {
      const r = checkTurn(full, '0 dB');
      assert.ok(r.inputGainDb <= 1, `gain ${r.inputGainDb} dB`);
    });

    for (const db of [-20, -30]) {
      it(`${db} dB: the same words, the speech end within 100 ms, the gain in the report`, async () => {
        const r = checkTurn(await talk(engines, settings, scaled(weather, db)), `${db} dB`);
        // Most of what was taken away is given back, never more than the cap.
        assert.ok(r.inputGainDb >= -db - 8 && r.inputGainDb <= Math.min(MAX_GAIN_DB, -db + 3), `gain ${r.inputGainDb} dB`);
      });
    }

    it('a quiet 44.1 kHz stereo recording (peak -20 dBFS), through the resampler: the same words, the last one too', async () => {
      const left = resample(weather, 16000, 44100);
      const right = left.map((v) => 0.8 * v); // the voice a little off-centre
      const g = 10 ** ((-20 - peakDb(left)) / 20);
      const audio: DecodedAudio = {
        sampleRate: 44100,
        channels: 2,
        format: 's16',
        durationSec: left.length / 44100,
        channelData: [s16(left.map((v) => v * g)), s16(right.map((v) => v * g))],
      };
      checkTurn(await talk(engines, settings, toMono16k(audio)), '44.1 kHz stereo, peak -20 dBFS');
    });

    for (const name of ['noise', 'silence']) {
      it(`${name}.wav: no turn, and the gain never rises`, async () => {
        const run = await talk(engines, settings, await loadClip16k(name));
        assert.equal(run.reports.length, 0, JSON.stringify(run.reports.map((r) => r.userText)));
        assert.ok(run.gains.length > 100 && run.gains.every((g) => g === 0), `gain rose to ${Math.max(...run.gains)} dB`);
      });
    }
  });
}

describe('post-roll after push-to-talk', () => {
  const settings = mergeSettings(DEFAULT_SETTINGS, { mode: 'push-to-talk', llm: { maxTokens: 16 }, models: { stt: 'test-stt-espeak-ctc' } });
  let engines: LoadedEngines;
  before(async () => {
    engines = await loadEngines(() => settings, MODEL_ROOTS);
  });
  after(async () => {
    await engines.dispose();
  });

  it('the key released 115 ms before the end of "today": the offline recognizer still hears all of it', async () => {
    const release = 2000;
    const { reports } = await talk(engines, settings, weather, [400, release]);
    assert.equal(reports.length, 1);
    const r = reports[0]!;
    assert.deepEqual(words(r.userText), words(WEATHER.text), `heard "${r.userText}"`);
    // The turn still ends at the release; only the recognizer listens on.
    assert.equal(r.endReason, 'push-to-talk');
    assert.ok(r.timings.endOfTurnMs >= release && r.timings.endOfTurnMs <= release + 50, `end of turn ${r.timings.endOfTurnMs}`);
  });
});
