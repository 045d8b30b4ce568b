/**
 * `npm run bench -- --turns` on a corpus of its own: four clips of ../shared/speech/turns under new
 * names, with the reduced sweep (--quick), so nothing may depend on the shared clips' names. Checks
 * the JSON's shape, that its counts match the manifest, the baseline and the chart; and that a bad
 * manifest is one clear error. The scoring and the chart are also checked as pure functions.
 */
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { scoreClip, scorePolicy, wordHolds } from '../electron/bench/turn-score';
import { tickStep, tradeoffSvg } from '../electron/bench/turn-svg';
import { MODELS, runCli, SPEECH, tempDir } from './helpers';

const TURNS = path.join(SPEECH, 'turns');

interface ManifestEntry {
  file: string;
  pauses: { start: number; end: number; kind: string }[];
}

/** Copies shared clips under new names, with a manifest listing them; returns the folder and the manifest. */
function corpus(clips: Record<string, string>): { dir: string; manifest: Record<string, ManifestEntry> } {
  const shared = JSON.parse(readFileSync(path.join(TURNS, 'manifest.json'), 'utf8')) as Record<string, ManifestEntry>;
  const dir = tempDir('lva-turns-');
  const manifest: Record<string, ManifestEntry> = {};
  for (const [name, from] of Object.entries(clips)) {
    copyFileSync(path.join(TURNS, shared[from]!.file), path.join(dir, `${name}.wav`));
    manifest[name] = { ...shared[from]!, file: `${name}.wav` };
  }
  writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
  return { dir, manifest };
}

/** Every tag closed in order (a well-formedness check small enough for this generator's output). */
function assertBalanced(svg: string): void {
  const stack: string[] = [];
  for (const m of svg.matchAll(/<(\/?)([a-zA-Z]+)[^>]*?(\/?)>/g)) {
    const [, close, name, selfClosing] = m;
    if (selfClosing) continue;
    if (close) assert.equal(stack.pop(), name, `</${name}> closes what was opened`);
    else stack.push(name!);
  }
  assert.deepEqual(stack, [], 'every tag is closed');
}

describe('npm run bench -- --turns', () => {
  it('runs the reduced sweep and the baseline, writes the JSON and the chart (beside one thread of other CPU work: --busy 1)', async () => {
    const { dir, manifest } = corpus({ kilo: 'turn_00', lima: 'turn_01', mike: 'turn_04', oscar: 'turn_07' });
    const json = path.join(dir, 'out.json');
    const svgFile = path.join(dir, 'out.svg');
    const r = await runCli('electron/cli/bench.ts', ['--turns', '--quick', '--corpus', dir, '--models', MODELS, '--json', json, '--svg', svgFile, '--busy', '1'], 240_000);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /policy +holds +ends +false cut-offs +end latency median +p95 +never ended +cut mid-speech +held by words \(overruled\)/);
    assert.match(r.stdout, /sequential \/ streaming: \d+\.\d\d/);
    assert.match(r.stdout, /end-of-turn model test-turn-eot-espeak: \d+ checks/);
    assert.match(r.stdout, /^busy: 1 thread of unrelated CPU work beside the pipeline for the whole run$/m);

    const j = JSON.parse(readFileSync(json, 'utf8')) as Record<string, unknown>;
    assert.deepEqual(Object.keys(j), ['policies', 'baseline', 'detectorMs', 'machine', 'models', 'clips', 'busy']);
    assert.equal(j.busy, 1);
    const holds = Object.values(manifest).flatMap((c) => c.pauses.filter((p) => p.kind === 'hold')).length;
    const ends = Object.values(manifest).flatMap((c) => c.pauses.filter((p) => p.kind === 'end')).length;
    const policies = j.policies as Record<string, unknown>[];
    assert.deepEqual(
      policies.map((p) => p.name),
      ['silence 300 ms', 'silence 600 ms', 'model p>=0.5 @200 ms'],
    );
    for (const p of policies) {
      assert.deepEqual(Object.keys(p), ['name', 'holds', 'ends', 'falseCutoffRate', 'endLatencyMs', 'neverEnded', 'cutsMidSpeech', 'heldByWords']);
      assert.equal(p.holds, holds);
      assert.equal(p.ends, ends);
      const rate = p.falseCutoffRate as number;
      assert.ok(rate >= 0 && rate <= 1, `${p.name}: rate ${rate}`);
      const lat = p.endLatencyMs as { median: number; p95: number };
      assert.deepEqual(Object.keys(lat), ['median', 'p95']);
      assert.ok(lat.median > 0 && lat.median <= lat.p95, `${p.name}: ${JSON.stringify(lat)}`);
      assert.equal(p.neverEnded, 0, `${p.name}: 3 s of silence ends every turn`);
    }
    // The dangling-word rule is counted over the model's checks only.
    assert.deepEqual(policies.map((p) => p.heldByWords === null), [true, true, false]);
    const words = policies[2]!.heldByWords as { checks: number; held: number; overruled: number };
    assert.ok(words.checks > 0 && words.held <= words.checks && words.overruled <= words.held, JSON.stringify(words));
    // Silence alone waits at least its silence after the words end (the placed end may be a window early).
    assert.ok((policies[1]!.endLatencyMs as { median: number }).median >= 550);

    const b = j.baseline as Record<string, unknown>;
    assert.deepEqual(Object.keys(b).slice(0, 3), ['streamingV2vMs', 'sequentialV2vMs', 'ratio']);
    assert.ok((b.streamingV2vMs as number) > 0 && (b.sequentialV2vMs as number) > 0);
    // The ratio is the two medians' quotient (to two places), not just some positive number.
    const quotient = (b.sequentialV2vMs as number) / (b.streamingV2vMs as number);
    assert.ok(Math.abs((b.ratio as number) - quotient) <= 0.005 + 1e-9, `ratio ${b.ratio}, sequential / streaming ${quotient}`);
    // The cascade waits 600 ms of silence, then every stage in turn.
    assert.ok((b.sequentialV2vMs as number) >= 550, `sequential ${b.sequentialV2vMs}`);
    const detector = j.detectorMs as { checks: number; median: number; p95: number };
    assert.ok(detector.checks > 0 && detector.median > 0 && detector.median <= detector.p95);
    const machine = j.machine as { cores: number; gpuBackend: string };
    assert.ok(machine.cores >= 1);
    const models = j.models as Record<string, { id: string }>;
    assert.deepEqual(Object.keys(models), ['vad', 'stt', 'llm', 'tts', 'turn']);
    assert.equal(models.turn!.id, 'test-turn-eot-espeak');
    assert.equal(j.clips, 4);

    const svg = readFileSync(svgFile, 'utf8');
    assert.ok(svg.startsWith('<svg '), svg.slice(0, 40));
    assert.ok(svg.trimEnd().endsWith('</svg>'));
    assertBalanced(svg);
    // Two families: silence alone (two points), the model at p>=0.5 (one).
    assert.equal(svg.match(/<path /g)?.length, 2);
    assert.match(svg, /silence alone/);
    assert.match(svg, /model p&gt;=0\.5/);
  });

  it('a bad manifest is one clear error line and status 1', async () => {
    const { dir, manifest } = corpus({ papa: 'turn_00' });
    manifest.papa!.pauses[0]!.kind = 'maybe';
    writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
    const r = await runCli('electron/cli/bench.ts', ['--turns', '--corpus', dir, '--models', MODELS]);
    assert.equal(r.code, 1);
    const lines = r.stderr.split('\n').filter((l) => l && !l.startsWith('npm warn'));
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, /^error: .*manifest\.json: clip "papa" pauses\[0\]\.kind must be "hold" or "end", got "maybe"/);

    writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ papa: { file: 'papa.wav', speech: [] } }));
    const noPauses = await runCli('electron/cli/bench.ts', ['--turns', '--corpus', dir]);
    assert.equal(noPauses.code, 1);
    assert.match(noPauses.stderr, /^error: .*clip "papa" has no "pauses" list/m);
  });

  it('--svg and --quick need --turns', async () => {
    const r = await runCli('electron/cli/bench.ts', ['--quick']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^error: --svg and --quick go with --turns/m);
  });
});

describe('turn scoring', () => {
  const pauses = [
    { startMs: 800, endMs: 1400, kind: 'hold' as const },
    { startMs: 2000, endMs: 2500, kind: 'hold' as const },
    { startMs: 3000, endMs: 6000, kind: 'end' as const },
  ];

  it('charges an end to the pause it was decided in, each hold at most once', () => {
    const s = scoreClip(pauses, [
      { atMs: 1300, speechEndMs: 810 },
      // Just after the first hold's end, the words having ended at it: the VAD had not heard the user again yet.
      { atMs: 1408, speechEndMs: 808 },
      { atMs: 3620, speechEndMs: 3010 },
      { atMs: 3900, speechEndMs: 3700 },
    ]);
    assert.deepEqual(s, { holds: 2, cutHolds: 1, ends: 1, latenciesMs: [620], neverEnded: 0, cutsMidSpeech: 0 });
  });

  it('an end decided while the user talks at no marked pause is a cut mid-speech; an end pause without an end is never ended', () => {
    const s = scoreClip(pauses, [
      { atMs: 500, speechEndMs: 400 },
      // After the first hold, but about a gap inside the next words: not that hold's cut-off.
      { atMs: 1800, speechEndMs: 1690 },
      { atMs: 2100, speechEndMs: 2000 },
    ]);
    assert.deepEqual(s, { holds: 2, cutHolds: 1, ends: 1, latenciesMs: [], neverEnded: 1, cutsMidSpeech: 2 });
    // A verdict landing after the clip's last window still belongs to the last pause.
    const late = scoreClip(pauses, [{ atMs: 6100, speechEndMs: 2990 }]);
    assert.deepEqual(late.latenciesMs, [3100]);
    const p = scorePolicy('x', [s, scoreClip(pauses, [{ atMs: 3200, speechEndMs: 3000 }])]);
    assert.deepEqual(p, { name: 'x', holds: 4, ends: 2, falseCutoffRate: 0.25, endLatencyMs: { median: 200, p95: 200 }, neverEnded: 1, cutsMidSpeech: 2, heldByWords: null });
  });

  it('counts the checks a dangling word held, and those where it overruled a finished verdict', () => {
    const check = (probability: number, text: string, heldBy: 'dangling-word' | null) => ({ atMs: 0, probability, text, heldBy });
    const checks = [check(0.9, 'call my', 'dangling-word'), check(0.1, 'turn on the', 'dangling-word'), check(0.9, 'call my mom', null)];
    assert.deepEqual(wordHolds(checks, 0.5), { checks: 3, held: 2, overruled: 1 });
    assert.deepEqual(wordHolds(checks, 0.05), { checks: 3, held: 2, overruled: 2 });
    assert.equal(scorePolicy('m', [], wordHolds(checks, 0.5)).heldByWords!.held, 2);
  });
});

describe('trade-off chart', () => {
  it('draws one path per family with labelled points, axes and a legend', () => {
    const svg = tradeoffSvg([
      { name: 'silence alone', points: [{ x: 300, y: 80, label: '300' }, { x: 600, y: 40, label: '600' }] },
      { name: 'model <p>', points: [{ x: 250, y: 10, label: '@200' }] },
    ]);
    assert.ok(svg.startsWith('<svg '));
    assertBalanced(svg);
    assert.equal(svg.match(/<path /g)?.length, 2);
    assert.equal(svg.match(/<circle /g)?.length, 3 + 2, 'three points and two legend marks');
    assert.match(svg, />model &lt;p&gt;</, 'text is escaped');
    assert.match(svg, />false cut-offs \(% of holds\)</);
    assert.equal(tickStep(1600), 500);
    assert.equal(tickStep(100), 20);
  });
});
