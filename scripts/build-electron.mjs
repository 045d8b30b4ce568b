/**
 * Builds the app with esbuild:
 *   electron/main.ts    -> dist-electron/main.js     (ESM, Node; native engines stay external), plus
 *                          its chunks: main.ts imports the controller (and with it the native engines)
 *                          only once the app is ready, so code splitting keeps that in a chunk of its own
 *   electron/engines/stt-worker.ts -> dist-electron/stt-worker.cjs (the streaming recognizer's thread;
 *                          CJS, next to the chunk that starts it, see startWorker in engines/stt.ts)
 *   electron/model-check/child.ts -> dist-electron/model-check.js (the process that runs a model once
 *                          before it counts as installed), with its speech sample next to it
 *   electron/preload.ts -> dist-electron/preload.cjs (CJS, fully bundled: sandboxed preloads load no modules)
 *   renderer/main.tsx   -> dist/renderer/main.js + main.css + index.html, and the two AudioWorklets
 * `--renderer` builds only the renderer (what `npm run dev:web` serves). NO_MINIFY=1 builds it
 * readable, with React's development checks (its warnings name the component at fault).
 */
import { build } from 'esbuild';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const at = (...p) => path.join(root, ...p);

/** Loaded from node_modules at run time: native addons must not be bundled (their file layout is load-bearing). */
const NATIVE = ['electron', 'node-llama-cpp', '@node-llama-cpp/*', 'sherpa-onnx-node', 'sherpa-onnx-node/*', 'sherpa-onnx-*', 'onnxruntime-node'];
/**
 * Plain JS also loaded from node_modules (app.asar in the package, a production dependency): the MCP
 * SDK's CommonJS dependencies (cross-spawn) call require("child_process"), which an ESM bundle cannot.
 */
const RUNTIME = ['@modelcontextprotocol/sdk', '@modelcontextprotocol/sdk/*'];

const common = {
  bundle: true,
  sourcemap: 'linked',
  logLevel: 'warning',
  absWorkingDir: root,
};

/** The page and its audio worklets (worklets are separate scripts: the audio thread loads them by URL). */
export async function buildRenderer() {
  await rm(at('dist', 'renderer'), { recursive: true, force: true });
  await mkdir(at('dist', 'renderer'), { recursive: true });
  const browser = {
    ...common,
    platform: 'browser',
    // Classic scripts: ES module scripts are subject to CORS, which file:// pages fail.
    format: 'iife',
    target: 'chrome130',
    minify: !process.env.NO_MINIFY,
  };
  await Promise.all([
    build({
      ...browser,
      entryPoints: [at('renderer', 'main.tsx')],
      outfile: at('dist', 'renderer', 'main.js'),
      jsx: 'automatic',
      define: { 'process.env.NODE_ENV': process.env.NO_MINIFY ? '"development"' : '"production"' },
    }),
    build({ ...browser, entryPoints: [at('renderer', 'audio', 'capture-worklet.ts')], outfile: at('dist', 'renderer', 'capture-worklet.js') }),
    build({ ...browser, entryPoints: [at('renderer', 'audio', 'playback-worklet.ts')], outfile: at('dist', 'renderer', 'playback-worklet.js') }),
    copyFile(at('renderer', 'index.html'), at('dist', 'renderer', 'index.html')),
    copyFile(at('renderer', 'favicon.svg'), at('dist', 'renderer', 'favicon.svg')),
  ]);
}

/**
 * The main process into `outdir`, flat (a chunk starts the STT worker by a path relative to itself):
 * `main.js` (package.json's "main"), its chunks, `stt-worker.cjs`, and the model checker
 * `model-check.js` (started by a chunk, by a path relative to itself) with `speech-sample.wav`.
 */
export async function buildMain(outdir) {
  const node = { ...common, platform: 'node', target: 'node22', external: [...NATIVE, ...RUNTIME] };
  await mkdir(outdir, { recursive: true });
  await Promise.all([
    build({ ...node, entryPoints: { main: at('electron', 'main.ts') }, outdir, splitting: true, format: 'esm' }),
    build({ ...node, entryPoints: [at('electron', 'engines', 'stt-worker.ts')], outfile: path.join(outdir, 'stt-worker.cjs'), format: 'cjs' }),
    build({ ...node, entryPoints: [at('electron', 'model-check', 'child.ts')], outfile: path.join(outdir, 'model-check.js'), format: 'esm' }),
    copyFile(at('electron', 'model-check', 'speech-sample.wav'), path.join(outdir, 'speech-sample.wav')),
  ]);
}

export async function buildAll() {
  await rm(at('dist-electron'), { recursive: true, force: true });
  await Promise.all([
    buildRenderer(),
    buildMain(at('dist-electron')),
    build({
      ...common,
      entryPoints: [at('electron', 'preload.ts')],
      outfile: at('dist-electron', 'preload.cjs'),
      platform: 'node',
      format: 'cjs',
      target: 'node22',
      external: ['electron'],
    }),
  ]);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    if (process.argv.includes('--renderer')) {
      await buildRenderer();
      console.log('built dist/renderer/');
    } else {
      await buildAll();
      console.log('built dist-electron/ (main.js and its chunks, stt-worker.cjs, preload.cjs), dist/renderer/');
    }
  } catch (err) {
    // esbuild has already printed the errors.
    if (!err?.errors) console.error(err);
    process.exitCode = 1;
  }
}
