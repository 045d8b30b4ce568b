/**
 * `npm run bench -- --rooms DIR`: the scoring on made-up runs (what counts as a self-interruption,
 * a false turn, a barge-in and a missed one), then one real run on a corpus and a room folder of its
 * own (one clip in which the user interrupts, one small room). Checks the JSON's shape and that its
 * counts agree with each other, not their values.
 */
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { GiveWay, scoreClip, type ClipRun, type RoomBenchResult } from '../electron/bench/rooms';
import type { TurnReport } from '../electron/pipeline/report';
import { MANIFEST, MODELS, runCli, SPEECH, tempDir } from './helpers';

const ROOMS = path.resolve(SPEECH, '../rooms');

/** The parts of a report the scoring reads. */
function report(index: number, firstAudioMs: number, lastAudioMs: number, bargeIn: TurnReport['bargeIn'] = null): TurnReport {
  return { index, bargeIn, timings: { firstAudioMs, lastAudioMs }, echo: { erleDb: 10, erleSettledDb: 12, tailMs: 200 } } as unknown as TurnReport;
}

describe('room benchmark scoring', () => {
  // The user speaks 0.5-2.0 s, then over the answer at 6.0-7.0 s.
  const speech = [
    { startMs: 500, endMs: 2000 },
    { startMs: 6000, endMs: 7000 },
  ];

  it('counts pauses and stops while the user is silent, turns in no segment, and the barge-in with its delay', () => {
    const run: ClipRun = {
      speech,
      bargeIn: true,
      // 3000: echo (resumed); 6100: the user, then stopped at the pause.
      pausedMs: [3000, 6100],
      interrupted: [
        { t: 4000, turn: 1 }, // the echo stopped answer 1 outright, its "speech" from 3900
        { t: 6200, turn: 0 },
      ],
      turns: [
        { startMs: 500, endMs: 2000 },
        { startMs: 3900, endMs: 4300 },
        { startMs: 6050, endMs: 7000 },
      ],
      reports: [
        report(0, 2500, 6100, { detectedMs: 6200, playbackStoppedMs: 6100, speechStartMs: 6050 }),
        report(1, 2500, 4000, { detectedMs: 4000, playbackStoppedMs: 4000, speechStartMs: 3900 }),
      ],
    };
    const s = scoreClip(run);
    assert.equal(s.selfInterruptions, 2, 'the pause at 3.0 s and the stop at 3.9 s');
    assert.equal(s.selfStops, 1);
    assert.deepEqual(s.selfInterruptionsAt, [
      { atMs: 3000, intoAnswerMs: 500 },
      { atMs: 3900, intoAnswerMs: 1400 },
    ]);
    assert.equal(s.falseTurns, 1, 'the turn at 3.9-4.3 s');
    assert.equal(s.segmentsOverAnswers, 1);
    assert.deepEqual(s.bargeInMs, [100]);
    assert.deepEqual(s.gaveWayMs, [100], 'paused where it stopped');
    assert.equal(s.missedBargeIns, 0);
    // Lowered 20 ms into the words, stopped 300 ms in: it gave way at 20 ms.
    const lowered = scoreClip({ ...run, pausedMs: [3000, 6020], interrupted: [run.interrupted[0]!, { t: 6300, turn: 0 }], reports: [report(0, 2500, 6300, { detectedMs: 6300, playbackStoppedMs: 6300, speechStartMs: 6000 }), run.reports[1]!] });
    assert.deepEqual([lowered.bargeInMs, lowered.gaveWayMs], [[300], [20]]);
    assert.deepEqual(s.erleSettledDb, [12, 12]);
    assert.deepEqual(s.erleDb, [10, 10]);
  });

  it('a segment over an answer that stops nothing is a missed barge-in; in a clip that does not interrupt it is not counted', () => {
    const run: ClipRun = { speech, bargeIn: true, pausedMs: [], interrupted: [], turns: [], reports: [report(0, 2500, 9000)] };
    assert.deepEqual([scoreClip(run).segmentsOverAnswers, scoreClip(run).missedBargeIns], [1, 1]);
    assert.deepEqual([scoreClip({ ...run, bargeIn: false }).segmentsOverAnswers, scoreClip({ ...run, bargeIn: false }).missedBargeIns], [0, 0]);
    // An answer that ended before the segment began was not talked over.
    const ended = scoreClip({ ...run, reports: [report(0, 2500, 5000)] });
    assert.equal(ended.segmentsOverAnswers, 0);
  });
});

describe('room benchmark: one incident per time the answer gives way', () => {
  it('an onset hold released lowered and then paused is one; lowered, back, and lowered again is two', () => {
    const g = new GiveWay();
    const began = (actions: ('paused' | 'resumed' | 'ducked' | 'restored')[]) => actions.map((a) => g.on(a));
    assert.deepEqual(began(['paused', 'ducked', 'resumed', 'paused']), [true, false, false, false], 'held, released lowered, paused again');
    g.stopped();
    assert.deepEqual(began(['ducked', 'restored', 'ducked']), [true, false, true]);
    assert.deepEqual(began(['paused', 'restored']), [false, false], 'still paused');
    assert.deepEqual(began(['resumed', 'paused']), [false, true]);
    g.stopped();
    assert.deepEqual(began(['paused']), [true], 'a stop ends the incident');
  });
});

describe('npm run bench -- --rooms', () => {
  it('one room and one clip: a row per gain with every field, and counts that agree', async () => {
    const corpus = tempDir('lva-corpus-');
    copyFileSync(path.join(SPEECH, 'interrupt.wav'), path.join(corpus, 'zulu.wav'));
    // Named so nothing depends on the shared names: the manifest says it interrupts.
    const segments = MANIFEST.interrupt!.speech.map(({ start, end }) => ({ start, end }));
    writeFileSync(path.join(corpus, 'manifest.json'), JSON.stringify({ second: { file: 'zulu.wav', speech: segments, bargeIn: true } }));
    const rooms = tempDir('lva-rooms-');
    copyFileSync(path.join(ROOMS, 'laptop_small_room.wav'), path.join(rooms, 'small.wav'));
    writeFileSync(path.join(rooms, 'rooms.json'), JSON.stringify({ rooms: [{ name: 'small', rt60: 0.2, drr_db: 8 }] }));
    const out = path.join(corpus, 'rooms.json');
    const r = await runCli('electron/cli/bench.ts', ['--rooms', rooms, '--corpus', corpus, '--models', MODELS, '--json', out], 300_000);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^small {2}\(RT60 0\.20 s, DRR \+8 dB, 200 ms response\)$/m);
    assert.match(r.stdout, /gain +self-interruptions \(stops\) +false turns +barge-ins +missed/);

    const j = JSON.parse(readFileSync(out, 'utf8')) as RoomBenchResult;
    assert.deepEqual(j.clips, ['second']);
    assert.deepEqual(j.gains, [0.5, 1]);
    assert.deepEqual(
      j.rooms.map((s) => [s.name, s.gain, s.rt60]),
      [
        ['small', 0.5, 0.2],
        ['small', 1, 0.2],
      ],
    );
    for (const s of j.rooms) {
      for (const key of ['selfInterruptions', 'falseTurns', 'bargeIns', 'missedBargeIns', 'bargeInMs', 'erleDb', 'erleWholeDb', 'echoCancellerMs']) assert.ok(key in s, `${key} in ${JSON.stringify(s)}`);
      // Only the second segment can be spoken over an answer; each such one is caught or missed.
      assert.ok(s.segmentsOverAnswers <= 1);
      assert.equal(s.bargeIns + s.missedBargeIns, s.segmentsOverAnswers);
      assert.ok(s.selfStops <= s.selfInterruptions);
      assert.ok(s.falseTurns <= s.turns);
      const b = s.bargeInMs;
      if (s.bargeIns > 0) assert.ok(b.median !== null && b.p95 !== null && b.median >= 0 && b.median <= b.p95, JSON.stringify(b));
      else assert.deepEqual(b, { median: null, p95: null });
      for (const e of [s.erleDb, s.erleWholeDb]) if (e.median !== null) assert.ok(e.p5 !== null && e.p5 <= e.median, JSON.stringify(e));
      assert.ok(s.answers >= 1, 'the request was answered');
      const cost = s.echoCancellerMs;
      assert.ok(cost.n > 0 && cost.median !== null && cost.p95 !== null && cost.median > 0 && cost.median <= cost.p95, JSON.stringify(cost));
      const [clip] = s.clips;
      assert.equal(clip!.selfInterruptions, s.selfInterruptions);
      assert.equal(clip!.bargeIns, s.bargeIns);
    }
    assert.ok(j.echoCancellerMs.n > 0);
  });

  it('bad rooms and flags are one clear line each', async () => {
    const empty = tempDir('lva-rooms-');
    const none = await runCli('electron/cli/bench.ts', ['--rooms', empty]);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /^error: --rooms: .* holds no \.wav file/m);
    const gains = await runCli('electron/cli/bench.ts', ['--rooms', ROOMS, '--gains', '0.5,loud']);
    assert.match(gains.stderr, /^error: --gains: "loud" is not an echo gain from 0 to 4/m);
    const clips = await runCli('electron/cli/bench.ts', ['--rooms', ROOMS, '--clips', 'nonesuch']);
    assert.match(clips.stderr, /^error: --clips: no clip named nonesuch in .*\(there are: .*interrupt/m);
  });
});
