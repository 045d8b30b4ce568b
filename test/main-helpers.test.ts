/**
 * The pure parts of the Electron shell (main.ts): the dialog shown when the native engines cannot
 * load, the gate that holds app events while the page loads, and the bounded wait at quit.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PageGate } from '../electron/page-gate';
import { startupFailure, VC_REDIST_URL } from '../electron/startup-failure';
import { settleWithin } from '../electron/time-limit';

/** An error as Node reports a native addon that could not be opened. */
function dlopenError(message: string, stackFile: string): Error {
  const e = new Error(message);
  e.stack = `Error: ${message}\n    at Module._extensions..node (node:internal/modules/cjs/loader:1460:18)\n    at ${stackFile}:1:1`;
  return e;
}

describe('startupFailure: the dialog when an engine cannot load', () => {
  it('names the engine whose module failed', () => {
    const sherpa = startupFailure(new Error('Could not find sherpa-onnx-node. Tried\n  ../sherpa-onnx-win-x64/sherpa-onnx.node'), 'win32');
    assert.match(sherpa.message, /^The speech recognition and synthesis engine \(sherpa-onnx-node\) could not be loaded:\nCould not find sherpa-onnx-node\. Tried\n/);
    const ort = startupFailure(dlopenError('The specified module could not be found.', 'C:\\app\\node_modules\\onnxruntime-node\\dist\\binding.js'), 'win32');
    assert.match(ort.message, /voice activity detection engine \(onnxruntime-node\)/);
    const llama = startupFailure(new Error("Cannot find package 'lifecycle-utils' imported from /opt/app/node_modules/node-llama-cpp/dist/index.js"), 'linux');
    assert.match(llama.message, /language model engine \(node-llama-cpp\)/);
    const other = startupFailure(new Error('something else'), 'darwin');
    assert.match(other.message, /^The assistant’s engines could not be loaded:\nsomething else\n/);
    assert.equal(other.title, 'Local Voice Assistant cannot start');
  });

  it('on Windows, points to the Visual C++ runtime, then to a reinstall', () => {
    const { message } = startupFailure(dlopenError('The specified module could not be found.', 'C:\\app\\node_modules\\onnxruntime-node\\dist\\binding.js'), 'win32');
    assert.ok(message.includes(`Install the Microsoft Visual C++ Redistributable (x64) from ${VC_REDIST_URL}`), message);
    const arm = startupFailure(dlopenError('The specified module could not be found.', 'C:\\app\\node_modules\\onnxruntime-node\\dist\\binding.js'), 'win32', 'arm64');
    assert.ok(arm.message.includes('Redistributable (arm64) from https://aka.ms/vs/17/release/vc_redist.arm64.exe'), arm.message);
    assert.match(message, /reinstall Local Voice Assistant\.$/);
  });

  it('on Linux, names a missing system library', () => {
    const err = dlopenError('libgomp.so.1: cannot open shared object file: No such file or directory', '/opt/app/resources/app.asar.unpacked/node_modules/sherpa-onnx-node/addon.js');
    const { message } = startupFailure(err, 'linux');
    assert.match(message, /sherpa-onnx-node/);
    assert.match(message, /lacks the system library libgomp\.so\.1\. Install the package that provides it/);
  });

  it('a library the app ships itself, missing, means a damaged install, not the system', () => {
    const err = dlopenError('libonnxruntime.so.1: cannot open shared object file: No such file or directory', '/opt/app/node_modules/onnxruntime-node/dist/binding.js');
    const { message } = startupFailure(err, 'linux');
    assert.doesNotMatch(message, /system library/);
    assert.match(message, /missing or damaged: reinstall Local Voice Assistant\.$/);
  });

  it('keeps the first line of a long message, at most 300 characters', () => {
    const { message } = startupFailure(new Error(`${'x'.repeat(500)}\nsecond line`), 'darwin');
    const shown = message.split('\n')[1]!;
    assert.equal(shown, 'x'.repeat(300));
    assert.doesNotMatch(message, /second line/);
  });
});

describe('PageGate: app events while the page loads', () => {
  it('holds messages until the page has loaded, then delivers them in order, then passes them through', () => {
    const got: number[] = [];
    const gate = new PageGate<number>((m) => got.push(m));
    gate.send(1);
    gate.send(2);
    assert.deepEqual(got, []);
    gate.release();
    assert.deepEqual(got, [1, 2]);
    gate.send(3);
    assert.deepEqual(got, [1, 2, 3]);
  });

  it('a reload holds again; what was held is delivered once', () => {
    const got: string[] = [];
    const gate = new PageGate<string>((m) => got.push(m));
    gate.release();
    gate.close();
    gate.send('status: ready');
    assert.deepEqual(got, []);
    gate.release();
    gate.release();
    assert.deepEqual(got, ['status: ready']);
  });

  it('a page that never loads keeps only the newest messages', () => {
    const got: number[] = [];
    const gate = new PageGate<number>((m) => got.push(m), 3);
    for (let i = 1; i <= 5; i++) gate.send(i);
    gate.release();
    assert.deepEqual(got, [3, 4, 5]);
  });
});

describe('settleWithin: the bounded wait at quit', () => {
  it('true when the work settles in time, resolved or rejected', async () => {
    assert.equal(await settleWithin(new Promise((r) => setTimeout(r, 10)), 1000), true);
    assert.equal(await settleWithin(Promise.reject(new Error('release failed')), 1000), true);
  });

  it('false once the time runs out, without waiting for work that never ends', async () => {
    const t0 = performance.now();
    assert.equal(await settleWithin(new Promise(() => {}), 50), false);
    const waited = performance.now() - t0;
    assert.ok(waited >= 45 && waited < 1000, `waited ${waited.toFixed(0)} ms`);
  });
});
