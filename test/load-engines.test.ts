/**
 * loadEngines and the optional end-of-turn model: loaded when installed, absent without complaint
 * when not, and a damaged or unknown one reported while everything else still loads.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, symlinkSync, truncateSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadEngines, type LoadedEngines } from '../electron/pipeline/load-engines';
import { DEFAULT_SETTINGS, type Settings } from '../electron/settings/schema';
import { MODELS, tempDir } from './helpers';

const settings: Settings = { ...DEFAULT_SETTINGS, llm: { ...DEFAULT_SETTINGS.llm, threads: 1, contextSize: 512 } };

/** A models folder of links to the shared test models, less the end-of-turn one. */
function withoutTurn(): string {
  const root = tempDir('lva-noturn-');
  for (const sub of ['vad', 'stt', 'llm', 'tts-synthetic']) symlinkSync(path.join(MODELS, sub), path.join(root, sub));
  return root;
}

async function load(roots: string[], s: Settings = settings): Promise<{ engines: LoadedEngines; progress: string[] }> {
  const progress: string[] = [];
  const engines = await loadEngines(() => s, roots, (kind, phase) => progress.push(`${kind} ${phase}`));
  return { engines, progress };
}

describe('loadEngines and the end-of-turn model', () => {
  it('loads the stand-in from the shared models and reports it', async () => {
    const { engines, progress } = await load([MODELS]);
    try {
      assert.ok(engines.turn, 'a turn detector');
      assert.equal(engines.models.turn?.id, 'test-turn-eot-espeak');
      assert.equal(engines.models.turn?.dir, path.join(MODELS, 'turn'));
      assert.equal(typeof engines.models.turn?.loadMs, 'number');
      assert.equal(engines.turnError, null);
      assert.ok(progress.includes('turn loading') && progress.includes('turn ready'));
      const { probability } = await engines.turn.score(new Float32Array(16000));
      assert.ok(Number.isFinite(probability) && probability >= 0 && probability <= 1, String(probability));
    } finally {
      await engines.dispose();
    }
  });

  it('without one, loads the rest and reports no end-of-turn model, not an error', async () => {
    const { engines, progress } = await load([withoutTurn()]);
    try {
      assert.equal(engines.turn, null);
      assert.equal(engines.models.turn ?? null, null);
      assert.equal(engines.turnError, null);
      assert.deepEqual(['vad', 'stt', 'llm', 'tts'].map((k) => typeof engines.models[k as 'vad']?.id), ['string', 'string', 'string', 'string']);
      assert.ok(!progress.some((p) => p.startsWith('turn')));
    } finally {
      await engines.dispose();
    }
  });

  it('a damaged one, or an unknown one chosen in settings, is reported and the rest still loads', async () => {
    const root = withoutTurn();
    mkdirSync(path.join(root, 'turn'));
    const file = path.join(root, 'turn', 'eot-espeak.onnx');
    copyFileSync(path.join(MODELS, 'turn', 'eot-espeak.onnx'), file);
    truncateSync(file, 1000);
    const damaged = await load([root]);
    try {
      assert.equal(damaged.engines.turn, null);
      assert.equal(damaged.engines.turnError?.code, 'model-corrupt');
      assert.match(damaged.engines.turnError!.message, /test-turn-eot-espeak .*1,000 bytes but should be 657,170 bytes/);
      assert.ok(damaged.engines.models.llm.id);
    } finally {
      await damaged.engines.dispose();
    }
    const unknown = await load([MODELS], { ...settings, models: { ...settings.models, turn: 'no-such-turn' } });
    try {
      assert.equal(unknown.engines.turn, null);
      assert.equal(unknown.engines.turnError?.code, 'model-unknown');
      assert.match(unknown.engines.turnError!.message, /Unknown turn model "no-such-turn"\. Known turn models: smart-turn-v3.2-cpu, test-turn-eot-espeak\./);
    } finally {
      await unknown.engines.dispose();
    }
  });

  it('missing required models are still named together, never the optional one', async () => {
    await assert.rejects(loadEngines(() => settings, [tempDir('lva-empty-')]), (e: Error) => {
      assert.match(e.message, /^No voice activity \(vad\), speech recognition \(stt\), language \(llm\), voice \(tts\) model is installed/);
      assert.doesNotMatch(e.message, /turn/);
      return true;
    });
  });
});
