/**
 * Running tool calls (electron/tools/): the toolbox's limits with scripted tools (a slow one, one
 * that ignores its signal), and the notes file on disk.
 */
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { clipboardTool } from '../electron/tools/clipboard';
import { NotesFile } from '../electron/tools/notes';
import { openTarget, openTool } from '../electron/tools/open';
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

  it('keeps a call\'s arguments and result (their first 200 characters) only when texts are logged', async () => {
    let keepText = false;
    const uses: ToolUse[] = [];
    const box = new Toolbox([tool('echo', async (a) => String(a.word))], () => ({ timeoutMs: 1000, keepText }));
    await box.call(call('echo', '{"word":"hi"}'), undefined, (u) => uses.push(u));
    keepText = true;
    const long = 'w'.repeat(300);
    await box.call(call('echo', JSON.stringify({ word: long })), undefined, (u) => uses.push(u));
    assert.equal('arguments' in uses[0]! || 'result' in uses[0]!, false);
    assert.equal(uses[1]!.arguments, `{"word":"${'w'.repeat(191)}`);
    assert.equal(uses[1]!.result, 'w'.repeat(200));
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

  it('an unknown or switched-off tool is not run, one that changes something runs only confirmed; bad arguments are said', async () => {
    let ran = 0;
    const box = new Toolbox(
      [
        tool('off', async () => String(++ran), { enabled: () => false }),
        tool('open_url', async () => String(++ran), { changes: true, describe: (a: Record<string, unknown>) => `open ${String(a.url)}` }),
        tool('ok', async () => String(++ran)),
      ],
      () => ({ timeoutMs: 1000 }),
    );
    assert.deepEqual(box.specs.map((s) => s.name), ['open_url', 'ok']);
    for (const name of ['nope', 'off']) assert.equal(await box.call(call(name), undefined, () => undefined), `error: there is no tool named ${name}`);
    const uses: ToolUse[] = [];
    assert.equal(await box.call(call('open_url', '{"url":"x.org"}'), undefined, (u) => uses.push(u)), 'error: the user has not agreed to this yet');
    assert.equal(uses[0]?.error, 'not confirmed');
    assert.equal(await box.call(call('ok', '{"a":'), undefined, () => undefined), 'error: the arguments are not a JSON object');
    assert.equal(await box.call(call('ok', '[1]'), undefined, () => undefined), 'error: the arguments are not a JSON object');
    assert.equal(ran, 0);
    assert.equal(box.request(call('ok')), null, 'a tool that changes nothing needs no yes');
    assert.equal(box.request(call('open_url', 'nope')), null, 'arguments that are not an object ask nothing');
    const asked = box.request(call('open_url', '{"url":"x.org"}'));
    assert.deepEqual(asked && { action: asked.action, server: asked.server }, { action: 'open x.org', server: 'built-in' });
    assert.equal(await box.call(asked!.call, undefined, () => undefined, true), '1');
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

  it('the open tool opens http(s) and mailto links and existing documents, never a program, another scheme or a relative path', async () => {
    const dir = tempDir('lva-open-');
    const doc = path.join(dir, 'plan.pdf');
    writeFileSync(doc, 'x');
    const script = path.join(dir, 'run.sh');
    writeFileSync(script, 'echo');
    const exe = path.join(dir, 'tool');
    writeFileSync(exe, 'x');
    chmodSync(exe, 0o755);
    assert.deepEqual(await openTarget(' https://example.com/a b '), { kind: 'url', url: 'https://example.com/a%20b' });
    assert.deepEqual(await openTarget('example.com'), { kind: 'url', url: 'https://example.com/' });
    assert.deepEqual(await openTarget('mailto:anna@example.com'), { kind: 'url', url: 'mailto:anna@example.com' });
    assert.deepEqual(await openTarget(doc), { kind: 'file', file: doc });
    const refused = async (t: unknown) => ((await openTarget(t)) as { why?: string }).why;
    assert.equal(await refused('file:///etc/passwd'), 'links of the kind file: are not opened');
    assert.equal(await refused('javascript:alert(1)'), 'links of the kind javascript: are not opened');
    assert.equal(await refused('notes/plan.pdf'), 'a file must be given by its full path');
    assert.equal(await refused(script), 'programs and scripts are not opened');
    if (process.platform !== 'win32') assert.equal(await refused(exe), 'the file is a program');
    assert.equal(await refused(path.join(dir, 'missing.pdf')), 'there is no such file');
    assert.equal(await refused(42), 'no link or file was given');
    assert.equal(await refused(`https://${'a'.repeat(3000)}.com`), 'the link is too long');

    const opened: string[] = [];
    const tool = openTool({ openExternal: async (u) => void opened.push(u), openPath: async (f) => (opened.push(f), f.endsWith('.pdf') ? '' : 'no program for it') });
    assert.equal(tool.changes, true, 'opening asks first');
    assert.equal(tool.describe?.({ target: 'example.com' }), 'open example.com');
    const signal = new AbortController().signal;
    assert.equal(await tool.run({ target: 'example.com' }, signal), 'Opened https://example.com/');
    assert.equal(await tool.run({ target: doc }, signal), `Opened ${doc}`);
    await assert.rejects(tool.run({ target: script }, signal), /not opened: programs and scripts are not opened/);
    assert.deepEqual(opened, ['https://example.com/', doc]);
  });
});
