/**
 * Builds the app with esbuild:
 *   electron/main.ts    -> dist-electron/main.js     (ESM, Node; native engines stay external)
 *   electron/preload.ts -> dist-electron/preload.cjs (CJS, fully bundled: sandboxed preloads load no modules)
 *   renderer/main.tsx   -> dist/renderer/main.js + index.html
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

export async function buildAll() {
  await Promise.all([rm(at('dist-electron'), { recursive: true, force: true }), rm(at('dist'), { recursive: true, force: true })]);
  await mkdir(at('dist', 'renderer'), { recursive: true });
  await Promise.all([
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
    build({
      ...common,
      entryPoints: [at('renderer', 'main.tsx')],
      outfile: at('dist', 'renderer', 'main.js'),
      platform: 'browser',
      // A classic script: ES module scripts are subject to CORS, which file:// pages fail.
      format: 'iife',
      target: 'chrome130',
      jsx: 'automatic',
      minify: true,
      define: { 'process.env.NODE_ENV': '"production"' },
    }),
    copyFile(at('renderer', 'index.html'), at('dist', 'renderer', 'index.html')),
  ]);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    await buildAll();
    console.log('built dist-electron/main.js, dist-electron/preload.cjs, dist/renderer/');
  } catch (err) {
    // esbuild has already printed the errors.
    if (!err?.errors) console.error(err);
    process.exitCode = 1;
  }
}
