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

describe('npm run bench', () => {
  it('prints the table and writes the JSON with every stage, the machine and the models', async () => {
    const corpus = tempDir('lva-corpus-');
    copyFileSync(path.join(SPEECH, 'weather.wav'), path.join(corpus, 'alpha.wav'));
    copyFileSync(path.join(SPEECH, 'interrupt.wav'), path.join(corpus, 'zulu.wav'));
    writeFileSync(path.join(corpus, 'manifest.json'), JSON.stringify({ first: { file: 'alpha.wav' }, second: { file: 'zulu.wav' } }));
    const out = path.join(corpus, 'out.json');
    const r = await runCli('electron/cli/bench.ts', ['--models', MODELS, '--corpus', corpus, '--runs', '2', '--json', out], 300_000);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /stage \(ms\) +n +median +p95 +p99 +max/);
    assert.match(r.stdout, /voice to voice +\d+ +\d+/);
    assert.match(r.stdout, /2 run\(s\) × 2 clips = \d+ turns/);

    const j = JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>;
    assert.deepEqual(Object.keys(j), ['stages', 'machine', 'models', 'runs']);
    const stages = j.stages as Record<string, { n: number; median: number; p95: number; p99: number; max: number }>;
    assert.deepEqual(Object.keys(stages), ['endpointMs', 'sttMs', 'llmTtftMs', 'ttsFirstAudioMs', 'voiceToVoiceMs', 'overheadMs', 'bargeInMs']);
    for (const [name, d] of Object.entries(stages)) {
      assert.ok(d.n > 0, `${name} has measurements`);
      assert.ok(d.median <= d.p95 && d.p95 <= d.p99 && d.p99 <= d.max, `${name} is ordered: ${JSON.stringify(d)}`);
    }
    // weather gives one turn, zulu two (the second barges in): per run 3 turns, 1 barge-in.
    assert.equal(stages.voiceToVoiceMs!.n, 6);
    assert.equal(stages.bargeInMs!.n, 2);
    assert.ok(stages.bargeInMs!.max < 1000, 'playback stops within a second of the user speaking');
    const endpoint = stages.endpointMs as unknown as { silenceMs: number; error: { median: number; max: number } };
    assert.equal(endpoint.silenceMs, 600);
    assert.ok(Math.abs(endpoint.error.median) <= 100, `endpoint error ${endpoint.error.median}`);
    assert.ok(stages.overheadMs!.median >= 0 && stages.overheadMs!.median < 10, `our overhead is single-digit ms: ${stages.overheadMs!.median}`);

    const machine = j.machine as { cpu: string; cores: number; gpuBackend: string; peakRssMiB: number };
    assert.ok(machine.cores >= 1 && machine.cpu.length > 0 && machine.peakRssMiB > 50);
    assert.equal(machine.gpuBackend, 'cpu');
    const models = j.models as Record<string, { id: string; loadMs: number; rtf: number }>;
    assert.deepEqual(Object.keys(models), ['vad', 'stt', 'llm', 'tts']);
    for (const [kind, m] of Object.entries(models)) {
      assert.ok(m.id.startsWith('test-'), kind);
      assert.ok(m.loadMs > 0 && m.rtf > 0 && m.rtf < 1, `${kind}: ${JSON.stringify(m)}`);
    }
    assert.equal(j.runs, 2);
  });

  it('a corpus without a manifest, or bad --runs, is one clear error', async () => {
    const empty = tempDir('lva-corpus-');
    const r = await runCli('electron/cli/bench.ts', ['--models', MODELS, '--corpus', empty]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^error: Cannot read the corpus manifest .*manifest\.json/m);
    const runs = await runCli('electron/cli/bench.ts', ['--runs', 'many']);
    assert.match(runs.stderr, /error: --runs must be a whole number from 1 to 1000, got "many"/);
  });
});
