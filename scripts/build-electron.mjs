/**
 * Builds the app with esbuild:
 *   electron/main.ts    -> dist-electron/main.js     (ESM, Node; native engines stay external)
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

export async function buildAll() {
  await rm(at('dist-electron'), { recursive: true, force: true });
  await Promise.all([
    buildRenderer(),
    build({
      ...common,
      entryPoints: [at('electron', 'main.ts')],
      outfile: at('dist-electron', 'main.js'),
      platform: 'node',
      format: 'esm',
      target: 'node22',
      external: NATIVE,
    }),
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
      console.log('built dist-electron/main.js, dist-electron/preload.cjs, dist/renderer/');
    }
  } catch (err) {
    // esbuild has already printed the errors.
    if (!err?.errors) console.error(err);
    process.exitCode = 1;
  }
}
