/**
 * `npm run bench` on a corpus of its own: clip names and a manifest without notes that the shared
 * corpus does not have, so nothing may depend on the shared clips' names. Checks the JSON's shape
 * and that the numbers are measurements (present, in order, bounded), not their values.
 */
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { MODELS, runCli, SPEECH, tempDir } from './helpers';

type Dist = { n: number; median: number; p95: number; p99: number; max: number };

describe('npm run bench', () => {
  /** One run of the bench over weather (one turn) and interrupt (two: the second barges in). */
  async function bench(settings: object | null, tools = false) {
    const corpus = tempDir('lva-corpus-');
    copyFileSync(path.join(SPEECH, 'weather.wav'), path.join(corpus, 'alpha.wav'));
    copyFileSync(path.join(SPEECH, 'interrupt.wav'), path.join(corpus, 'zulu.wav'));
    writeFileSync(path.join(corpus, 'manifest.json'), JSON.stringify({ first: { file: 'alpha.wav' }, second: { file: 'zulu.wav' } }));
    const extra: string[] = [];
    if (settings) {
      writeFileSync(path.join(corpus, 'settings.json'), JSON.stringify(settings));
      extra.push('--settings', path.join(corpus, 'settings.json'));
    }
    const out = path.join(corpus, 'out.json');
    const r = await runCli('electron/cli/bench.ts', ['--models', MODELS, '--corpus', corpus, '--runs', '1', '--json', out, ...extra, ...(tools ? ['--tools'] : [])], 300_000);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /stage \(ms\) +n +median +p95 +p99 +max/);
    assert.match(r.stdout, /voice to voice +\d+ +\d+/);
    assert.match(r.stdout, /1 run\(s\) × 2 clips = 3 turns/);
    const j = JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>;
    assert.deepEqual(Object.keys(j), ['stages', 'prepared', 'machine', 'models', 'runs', 'echoCancellerMs', 'tools', 'turns', 'busy']);
    assert.equal(j.busy, 0, 'no other work beside it');
    // Every turn's waterfall, in the order run, its voice to voice where its playback began.
    const turns = j.turns as { voiceToVoiceMs: number | null; timeline: { stage: string; startMs: number; endMs: number }[] }[];
    assert.equal(turns.length, 3);
    for (const t of turns) assert.equal(t.timeline.find((s) => s.stage === 'playback')?.startMs, t.voiceToVoiceMs, JSON.stringify(t));
    // The canceller ran on every window an answer played in; its cost is printed under the stages.
    const cost = j.echoCancellerMs as { n: number; median: number; p95: number };
    assert.ok(cost.n > 0 && cost.median > 0 && cost.median <= cost.p95, JSON.stringify(cost));
    assert.match(r.stdout, /echo canceller \(per 32 ms window\) +\d+ +\d+\.\d{3} +\d+\.\d{3}/);
    // The small figures tests used to time (electron/bench/micro.ts) are printed, measured.
    assert.match(r.stdout, /command match \(per utterance, µs\) +240 +\d+\.\d +\d+\.\d +\d+\.\d/);
    assert.match(r.stdout, /resample 60 s 48 -> 16 kHz +3 +\d+ +\d+ +\d+/);
    const all = j.stages as Record<string, unknown>;
    assert.deepEqual(Object.keys(all), ['endpointMs', 'sttMs', 'llmTtftMs', 'ttsFirstAudioMs', 'voiceToVoiceMs', 'overheadMs', 'bargeInMs', 'afterEndMs', 'preparedLeadMs']);
    const { afterEndMs, ...rest } = all as { afterEndMs: { prepared: Dist; unprepared: Dist } } & Record<string, Dist>;
    const stages: Record<string, Dist> = { ...rest, afterPrepared: afterEndMs.prepared, afterUnprepared: afterEndMs.unprepared };
    for (const [name, d] of Object.entries(stages)) {
      if (d.n > 0) assert.ok(d.median <= d.p95 && d.p95 <= d.p99 && d.p99 <= d.max, `${name} is ordered: ${JSON.stringify(d)}`);
    }
    assert.equal(stages.voiceToVoiceMs!.n, 3);
    assert.equal(stages.bargeInMs!.n, 1);
    assert.ok(stages.bargeInMs!.max < 1000, 'playback stops within a second of the user speaking');
    return { j, stages, stdout: r.stdout, prepared: j.prepared as { used: number; dropped: number; none: number } };
  }

  it('as shipped: answers prepared during the pause play at once; the JSON has every stage, the machine and the models', async () => {
    const { j, stages, prepared } = await bench(null);
    assert.deepEqual(prepared, { used: 3, dropped: 0, none: 0 }, 'each turn was answered from its pause');
    for (const name of ['endpointMs', 'sttMs', 'voiceToVoiceMs', 'afterPrepared', 'preparedLeadMs']) assert.ok(stages[name]!.n > 0, `${name} has measurements`);
    // The end-of-turn model ends these finished questions well before silence alone (600 ms) would.
    const endpoint = stages.endpointMs as Dist & { silenceMs: number };
    assert.equal(endpoint.silenceMs, 600);
    assert.ok(endpoint.median < 500, `endpoint ${endpoint.median}`);
    // Prepared before the end of the turn; how soon it then plays is the bench's figure, not a test's.
    assert.ok(stages.preparedLeadMs!.n === 3 && stages.preparedLeadMs!.max! > 0, JSON.stringify(stages.preparedLeadMs));

    const machine = j.machine as { cpu: string; cores: number; gpuBackend: string; peakRssMiB: number };
    assert.ok(machine.cores >= 1 && machine.cpu.length > 0 && machine.peakRssMiB > 50);
    assert.equal(machine.gpuBackend, 'cpu');
    const models = j.models as Record<string, { id: string; loadMs: number; rtf: number }>;
    assert.deepEqual(Object.keys(models), ['vad', 'stt', 'llm', 'tts']);
    for (const [kind, m] of Object.entries(models)) {
      assert.ok(m.id.startsWith('test-'), kind);
      assert.ok(m.loadMs > 0 && m.rtf > 0 && m.rtf < 1, `${kind}: ${JSON.stringify(m)}`);
    }
    assert.equal(j.runs, 1);
    assert.equal(j.tools, null, 'no tools offered without --tools');
  });

  it('without prepared answers or the model: every engine stage, the silence endpoint error and our overhead', async () => {
    // With the built-in tools offered as the app does (--tools): none is called, every stage is there.
    const { j, stages, prepared, stdout } = await bench({ prepareAnswers: false, endpointing: { turnModel: false }, llm: { maxTokens: 64 } }, true);
    assert.deepEqual(prepared, { used: 0, dropped: 0, none: 3 });
    assert.deepEqual(j.tools, { offered: ['add_note', 'read_notes', 'read_clipboard', 'open'], calls: 0 });
    assert.match(stdout, /tools offered: add_note, read_notes, read_clipboard, open \(0 calls made\)/);
    for (const name of ['endpointMs', 'sttMs', 'llmTtftMs', 'ttsFirstAudioMs', 'voiceToVoiceMs', 'overheadMs', 'afterUnprepared']) assert.ok(stages[name]!.n > 0, `${name} has measurements`);
    const endpoint = stages.endpointMs as Dist & { silenceMs: number; error: Dist };
    assert.ok(Math.abs(endpoint.error.median) <= 100, `endpoint error ${endpoint.error.median}`);
    // Measured (its size is the bench's figure): never negative, never more than the stage it is part of.
    assert.ok(stages.overheadMs!.median! >= 0 && stages.overheadMs!.max! <= stages.voiceToVoiceMs!.max!, `overhead ${JSON.stringify(stages.overheadMs)}`);
  });

  it('a corpus without a manifest, or bad --runs, --busy or --split, is one clear error', async () => {
    const empty = tempDir('lva-corpus-');
    const r = await runCli('electron/cli/bench.ts', ['--models', MODELS, '--corpus', empty]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^error: Cannot read the corpus manifest .*manifest\.json/m);
    const runs = await runCli('electron/cli/bench.ts', ['--runs', 'many']);
    assert.match(runs.stderr, /error: --runs must be a whole number from 1 to 1000, got "many"/);
    const busy = await runCli('electron/cli/bench.ts', ['--busy', 'lots']);
    assert.equal(busy.code, 1);
    assert.match(busy.stderr, /^error: --busy must be a whole number of threads from 0 to 64, got "lots"$/m);
    const split = await runCli('electron/cli/bench.ts', ['--split', 'held-out']);
    assert.match(split.stderr, /error: --split and --ack-corpus go with --acks/);
    const acks = await runCli('electron/cli/bench.ts', ['--acks', '--split', 'some']);
    assert.match(acks.stderr, /error: --split must be held-out, tuning or all, got "some"/);
  });
});
