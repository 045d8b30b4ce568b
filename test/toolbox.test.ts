/**
 * Running tool calls (electron/tools/): the toolbox's limits with scripted tools (a slow one, one
 * that ignores its signal), and the notes file on disk.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { clipboardTool } from '../electron/tools/clipboard';
import { NotesFile } from '../electron/tools/notes';
import { MAX_RESULT_CHARS, Toolbox, type Tool, type ToolUse } from '../electron/tools/toolbox';
import { tempDir } from './helpers';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function tool(name: string, run: Tool['run'], extra: Partial<Tool> = {}): Tool {
  return { spec: { name, description: name, parameters: { type: 'object', properties: {} } }, server: 'built-in', changes: false, run, ...extra };
}

const call = (name: string, args = '{}') => ({ id: 'c1', name, arguments: args });

describe('the toolbox', () => {
  it('runs a call, records it, and gives the result to the model (cut when huge)', async () => {
    const uses: ToolUse[] = [];
    const box = new Toolbox([tool('echo', async (a) => `said ${String(a.word)}`), tool('big', async () => 'x'.repeat(MAX_RESULT_CHARS * 2))], () => ({ timeoutMs: 1000 }));
    assert.equal(await box.call(call('echo', '{"word":"hi"}'), undefined, (u) => uses.push(u)), 'said hi');
    assert.equal(uses.length, 1);
    assert.deepEqual({ ...uses[0], ms: 0, startMs: 0 }, { name: 'echo', server: 'built-in', ms: 0, ok: true, error: null, startMs: 0 });
    const big = await box.call(call('big'), undefined, () => undefined);
    assert.ok(big.length < MAX_RESULT_CHARS + 20 && big.endsWith('(cut)'));
  });

  it('a tool past tools.timeoutMs is abandoned with its signal aborted; one that ignores the signal does not hold the turn', async () => {
    let sawAbort = false;
    const uses: ToolUse[] = [];
    const box = new Toolbox(
      [
        tool('slow', async (_a, signal) => {
          await new Promise<void>((r) => signal.addEventListener('abort', () => ((sawAbort = true), r()), { once: true }));
          return 'late';
        }),
        tool('deaf', async () => (await sleep(5000), 'late')),
      ],
      () => ({ timeoutMs: 100 }),
    );
    const t0 = performance.now();
    assert.equal(await box.call(call('slow'), undefined, (u) => uses.push(u)), 'error: it took longer than 0.1 s');
    assert.equal(await box.call(call('deaf'), undefined, (u) => uses.push(u)), 'error: it took longer than 0.1 s');
    assert.ok(performance.now() - t0 < 4000, 'the deaf tool was not waited for');
    assert.ok(sawAbort);
    assert.deepEqual(uses.map((u) => [u.ok, u.error]), [[false, 'it took longer than 0.1 s'], [false, 'it took longer than 0.1 s']]);
  });

  it("the turn's signal (a barge-in) aborts the running call at once", async () => {
    const ac = new AbortController();
    const box = new Toolbox([tool('wait', () => new Promise(() => undefined))], () => ({ timeoutMs: 10_000 }));
    const t0 = performance.now();
    setTimeout(() => ac.abort(), 20);
    const uses: ToolUse[] = [];
    assert.equal(await box.call(call('wait'), ac.signal, (u) => uses.push(u)), 'error: the turn was interrupted');
    assert.ok(performance.now() - t0 < 1000);
    assert.equal(uses[0]?.error, 'the turn was interrupted');
  });

  it('an unknown tool, a switched-off one, or one that changes something is not run; bad arguments are said', async () => {
    let ran = 0;
    const box = new Toolbox(
      [tool('off', async () => String(++ran), { enabled: () => false }), tool('open_url', async () => String(++ran), { changes: true }), tool('ok', async () => String(++ran))],
      () => ({ timeoutMs: 1000 }),
    );
    assert.deepEqual(box.specs.map((s) => s.name), ['ok']);
    for (const name of ['nope', 'off', 'open_url']) assert.equal(await box.call(call(name), undefined, () => undefined), `error: there is no tool named ${name}`);
    assert.equal(await box.call(call('ok', '{"a":'), undefined, () => undefined), 'error: the arguments are not JSON');
    assert.equal(ran, 0);
  });

  it('a tool that throws is recorded with its first line', async () => {
    const uses: ToolUse[] = [];
    const box = new Toolbox([tool('bad', async () => { throw new Error('disk full\nat stack'); })], () => ({ timeoutMs: 1000 }));
    assert.equal(await box.call(call('bad'), undefined, (u) => uses.push(u)), 'error: disk full');
    assert.equal(uses[0]?.ok, false);
  });
});

describe('notes and the clipboard', () => {
  it('notes are appended one line each, kept across instances, read back latest last, and two at once both kept', async () => {
    const file = path.join(tempDir('lva-notes-'), 'notes.md');
    const notes = new NotesFile(file);
    assert.equal(await notes.read(), 'There are no notes.');
    await Promise.all([notes.add('buy  milk\n'), notes.add('call Anna')]);
    assert.equal(await notes.add('   '), 'error: the note is empty');
    const again = new NotesFile(file);
    const text = await again.read();
    assert.match(text, /^2 notes:\n- buy milk {2}\(.*\)\n- call Anna {2}\(.*\)$/);
    assert.match(readFileSync(file, 'utf8'), /^# Notes\n\n- buy milk/);
  });

  it('a notes.md too big to be the app’s is left alone, never rewritten', async () => {
    const file = path.join(tempDir('lva-notes-'), 'notes.md');
    writeFileSync(file, Buffer.alloc(5 * 1024 * 1024, 0x61));
    await assert.rejects(new NotesFile(file).add('x'), /too big to be the app's notes; it was left alone/);
    assert.equal(readFileSync(file).length, 5 * 1024 * 1024);
  });

  it('the clipboard tool says when there is no text, and gives the start of a long one', async () => {
    const empty = clipboardTool({ readText: () => ' ' });
    assert.equal(await empty.run({}, new AbortController().signal), 'The clipboard holds no text.');
    const long = clipboardTool({ readText: () => 'y'.repeat(10_000) });
    assert.match(await long.run({}, new AbortController().signal), /^y{4000}… \(the clipboard holds 10000 characters; this is the start\)$/);
  });
});
