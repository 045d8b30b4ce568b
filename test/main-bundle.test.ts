/**
 * The built main process (scripts/build-electron.mjs, into a scratch folder under node_modules so
 * that packages resolve as they do from dist-electron/): its entry loads no native engine before
 * main() runs, the controller that does is a chunk reached by a dynamic import, sherpa-onnx loads
 * before onnxruntime-node, and the built controller runs the real engines in Node, the streaming
 * recognizer in the built stt-worker.cjs.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import path, { dirname } from 'node:path';
import { promisify } from 'node:util';
import { TEST_CATALOG } from '../native-models/catalog';
import { resolveModel } from '../native-models/resolver';
import { after, before, describe, it } from 'node:test';
import type { AssistantController as Controller } from '../electron/app/controller';
import type { AppEvent } from '../electron/ipc-contract';
import { buildMain } from '../scripts/build-electron.mjs';
import { loadClip16k, MODEL_ROOTS } from './engine-fixtures';
import { ROOT, tempDir } from './helpers';

const run = promisify(execFile);
const NATIVE = /^(node-llama-cpp|@node-llama-cpp\/|sherpa-onnx-|onnxruntime-node)/;
const OUT = path.join(ROOT, 'node_modules', '.cache', `lva-main-bundle-${process.pid}`);

/** The specifiers a built file imports, as written in it. */
function importsOf(file: string): { static: string[]; dynamic: string[] } {
  const text = readFileSync(path.join(OUT, file), 'utf8');
  return {
    static: [...text.matchAll(/^import\b[^;'"]*?["']([^"']+)["']/gm)].map((m) => m[1]!),
    dynamic: [...text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]!),
  };
}

/** Every package `file` loads by static imports, following them into its chunks, in evaluation order. */
function staticPackages(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  return importsOf(file).static.flatMap((s) => (s.startsWith('./') ? staticPackages(s.slice(2), seen) : [s]));
}

describe('the built main process', () => {
  let outputs: string[];
  before(async () => {
    await buildMain(OUT);
    outputs = readdirSync(OUT);
  });
  after(() => rmSync(OUT, { recursive: true, force: true }));

  it('main.js imports no native package at its top level', () => {
    assert.ok(outputs.includes('main.js') && outputs.includes('stt-worker.cjs'), `outputs: ${outputs.join(', ')}`);
    const loaded = staticPackages('main.js');
    assert.ok(loaded.includes('electron'), `the walk found main.js's imports: ${loaded.join(', ')}`);
    assert.deepEqual(loaded.filter((p) => NATIVE.test(p)), []);
  });

  it('the controller is a chunk of its own, reached by a dynamic import, and it loads every engine', () => {
    const dynamic = importsOf('main.js').dynamic;
    const controller = dynamic.find((d) => /^\.\/controller-\w+\.js$/.test(d));
    assert.ok(controller, `dynamic imports of main.js: ${dynamic.join(', ')}`);
    const loaded = staticPackages(controller.slice(2));
    for (const pkg of ['node-llama-cpp', 'sherpa-onnx-node', 'onnxruntime-node']) assert.ok(loaded.includes(pkg), `${pkg} in ${loaded.join(', ')}`);
    // Windows binds an already loaded onnxruntime.dll to whoever asks next: sherpa's (newer) must be first.
    assert.ok(loaded.indexOf('sherpa-onnx-node') < loaded.indexOf('onnxruntime-node'), `load order: ${loaded.join(', ')}`);
  });

  it('the built controller loads the real engines, the streaming recognizer in stt-worker.cjs, and hears speech', async () => {
    const controllerChunk = outputs.find((f) => /^controller-\w+\.js$/.test(f))!;
    const built = (await import(path.join(OUT, controllerChunk))) as { AssistantController: typeof Controller };
    const dir = tempDir('lva-bundle-');
    await writeFile(path.join(dir, 'settings.json'), JSON.stringify({ llm: { threads: 1, maxTokens: 8 } }));
    const controller = new built.AssistantController({
      settingsFile: path.join(dir, 'settings.json'),
      modelRoots: () => MODEL_ROOTS,
      downloadRoot: dir,
      audioSink: () => null,
    });
    const partials: string[] = [];
    controller.on((e: AppEvent) => {
      if (e.type === 'pipeline' && e.event.type === 'partial') partials.push(e.event.text);
    });
    try {
      await controller.start();
      const status = controller.snapshot().status;
      assert.equal(status.phase, 'ready', status.error ?? '');
      assert.equal(status.models.find((m) => m.kind === 'stt')?.id, 'test-stt-espeak-ctc-streaming');
      const speech = await loadClip16k('weather');
      for (let i = 0; i < speech.length; i += 512) {
        controller.pushAudio(speech.slice(i, i + 512));
        await new Promise((r) => setTimeout(r, 2));
      }
      for (const end = Date.now() + 10_000; partials.length === 0 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20));
      assert.ok(partials.some((p) => /weather/.test(p)), `partials from the built worker: ${JSON.stringify(partials)}`);
    } finally {
      await controller.dispose();
    }
  });

  it('the MCP SDK stays out of the bundle (its CommonJS needs require), and the built controller starts an MCP server with it', async () => {
    const chunk = outputs.find((f) => /^controller-\w+\.js$/.test(f))!;
    const sdk = staticPackages(chunk).filter((p) => p.startsWith('@modelcontextprotocol/sdk/'));
    assert.ok(sdk.includes('@modelcontextprotocol/sdk/client/stdio.js'), `the controller's packages: ${staticPackages(chunk).join(', ')}`);
    const built = (await import(path.join(OUT, chunk))) as { AssistantController: typeof Controller };
    const dir = tempDir('lva-bundle-mcp-');
    const server = { name: 'echoes', command: process.execPath, args: [path.join(ROOT, 'test', 'fixtures', 'mcp-server.mjs')] };
    await writeFile(path.join(dir, 'settings.json'), JSON.stringify({ tools: { mcpServers: [server] } }));
    const controller = new built.AssistantController({
      settingsFile: path.join(dir, 'settings.json'),
      modelRoots: () => [path.join(dir, 'no-models')],
      downloadRoot: dir,
      audioSink: () => null,
      detectHardware: async () => ({ backend: 'cpu', gpuNames: [], vramMiB: null, unifiedMemory: false, ramMiB: 8192 }),
    });
    try {
      await controller.start();
      const end = Date.now() + 15_000;
      while (controller.snapshot().status.tools.servers[0]?.state !== 'ready' && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      const s = controller.snapshot().status.tools.servers[0];
      assert.equal(s?.state, 'ready', s?.error ?? 'no server');
      assert.ok(s.tools.some((t) => t.name === 'echo'));
    } finally {
      await controller.dispose();
    }
  });

  it('the built model checker runs a recognizer over the speech sample shipped beside it', async () => {
    assert.ok(outputs.includes('model-check.js') && outputs.includes('speech-sample.wav'), `outputs: ${outputs.join(', ')}`);
    const entry = TEST_CATALOG.find((e) => e.id === 'test-stt-espeak-ctc-streaming')!;
    const model = await resolveModel(entry, MODEL_ROOTS);
    // Without an IPC channel the checker prints its one message as JSON.
    const { stdout } = await run(process.execPath, [path.join(OUT, 'model-check.js'), JSON.stringify(model)], { cwd: dirname(OUT) });
    assert.deepEqual({ ...JSON.parse(stdout.trim()), loadMs: 0 }, { ok: true, loadMs: 0, detail: 'heard "what is the weather like today"' });
  });
});
