/**
 * The house by stage: the pipeline's folders show its flow (listen → turns → respond → speak), its
 * imports run that way, engines know nothing of turns, and no import cycle exists anywhere.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from './helpers';
import { importCycles, importEdges, sourceFiles, type ImportEdge } from './import-graph';

const PIPELINE = 'electron/pipeline';
const STAGES = ['listen', 'turns', 'respond', 'speak', 'skills', 'run'] as const;
type Stage = (typeof STAGES)[number];

/** The stages each stage may import (besides itself and the shared files at the pipeline's top). */
const MAY_IMPORT: Record<Stage, Stage[]> = {
  listen: [],
  turns: ['listen'],
  respond: ['turns', 'speak', 'skills'],
  speak: [],
  skills: ['speak'],
  run: ['listen', 'turns', 'respond', 'speak', 'skills'],
};
/** Top-level files that assemble the stages; the other top-level files are shared words every stage may use. */
const ASSEMBLERS = [`${PIPELINE}/voice-pipeline.ts`, `${PIPELINE}/load-engines.ts`];
/** A shared file may name a stage's type: the context hands every stage the output. */
const SHARED_MAY_IMPORT: Record<string, Stage[]> = { [`${PIPELINE}/context.ts`]: ['speak'] };
/** What the renderer may take from the pipeline: types, the vocabulary, the pure policies it replays, and the wake phrase matcher its check uses. */
const RENDERER_MAY_IMPORT = ['vocabulary.ts', 'events.ts', 'report.ts', 'turns/segmenter.ts', 'turns/turn-end.ts', 'turns/wake-phrase.ts'].map((f) => `${PIPELINE}/${f}`);

const stageOf = (file: string): Stage | 'top' | null => {
  if (!file.startsWith(`${PIPELINE}/`)) return null;
  const rest = file.slice(PIPELINE.length + 1);
  if (!rest.includes('/')) return 'top';
  const stage = rest.split('/')[0] as Stage;
  assert.ok(STAGES.includes(stage), `${file} is in no known stage folder`);
  return stage;
};

const edges: ImportEdge[] = importEdges(ROOT, sourceFiles(ROOT, ['electron', 'renderer', 'native-models', 'scripts', 'test']));
const show = (es: ImportEdge[]) => es.map((e) => `${e.from} → ${e.to}`).join('\n');

describe('architecture', () => {
  it('reads the import graph (static, dynamic and type-only imports)', () => {
    const has = (from: string, to: string) => edges.some((e) => e.from === from && e.to === to);
    assert.ok(has(`${PIPELINE}/voice-pipeline.ts`, `${PIPELINE}/turns/turn-taking.ts`));
    assert.ok(edges.some((e) => e.typeOnly) && edges.some((e) => !e.typeOnly));
    assert.ok(edges.length > 300, `only ${edges.length} imports found`);
  });

  it('finds a cycle when there is one (the checker itself)', () => {
    const e = (from: string, to: string): ImportEdge => ({ from, to, typeOnly: true });
    assert.deepEqual(importCycles([e('a', 'b'), e('b', 'c'), e('c', 'a'), e('c', 'd')]), [['a', 'b', 'c']]);
    assert.deepEqual(importCycles([e('a', 'a')]), [['a']]);
    assert.deepEqual(importCycles([e('a', 'b'), e('b', 'c'), e('a', 'c')]), []);
  });

  it('has no import cycle anywhere, type-only imports included', () => {
    const cycles = importCycles(edges);
    assert.deepEqual(cycles, [], `import cycles:\n${cycles.map((c) => c.join(' ↔ ')).join('\n')}`);
  });

  it('keeps at most 8 files at the top of the pipeline folder, the rest in stage folders', () => {
    const entries = fs.readdirSync(path.join(ROOT, PIPELINE), { withFileTypes: true });
    const top = entries.filter((e) => e.isFile()).map((e) => e.name);
    assert.ok(top.length <= 8, `${top.length} files at the top: ${top.join(', ')}`);
    const folders = entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
    assert.deepEqual(folders, [...STAGES].sort());
  });

  it('runs the stages listen ← turns ← respond → speak; skills never import respond', () => {
    const wrong = edges.filter((e) => {
      const from = stageOf(e.from);
      const to = stageOf(e.to);
      if (from === null || to === null || to === 'top' || from === to) return false;
      if (from === 'top') return !ASSEMBLERS.includes(e.from) && !(SHARED_MAY_IMPORT[e.from] ?? []).includes(to);
      return !MAY_IMPORT[from].includes(to);
    });
    assert.equal(wrong.length, 0, `imports against the flow:\n${show(wrong)}`);
  });

  it('engines import nothing from the pipeline', () => {
    const wrong = edges.filter((e) => e.from.startsWith('electron/engines/') && e.to.startsWith(`${PIPELINE}/`));
    assert.equal(wrong.length, 0, show(wrong));
  });

  it('the renderer takes only types, the vocabulary and the pure policies it replays from the pipeline', () => {
    const wrong = edges.filter((e) => e.from.startsWith('renderer/') && e.to.startsWith(`${PIPELINE}/`) && !e.typeOnly && !RENDERER_MAY_IMPORT.includes(e.to));
    assert.equal(wrong.length, 0, show(wrong));
  });
});
