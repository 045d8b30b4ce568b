/**
 * Memory end to end (issue 42): `talk` three times with one settings folder, on the real speech
 * engines. The first run keeps two facts said as local commands; the second, with the stand-in
 * language model, has them in its prompt; the third, with a scripted OpenAI-compatible server, sends
 * them in the system prompt, then forgets one fact and then every fact, each confirmed by voice.
 *
 * The stand-in recognizers know about 380 words, and "remember" and "forget" are not among them
 * (they hear "rembathat"): the clips use phrasings the grammar accepts in words they know ("add the
 * fact that ...", "cancel the fact about ...", "cancel the facts"); "remember that ..." and "forget
 * ..." themselves are matched in test/commands.test.ts and answered in test/memory-commands.test.ts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { writeWavFile } from '../electron/audio/wav';
import { espeakPhrase } from '../electron/bench/ack-corpus';
import { talkMain } from '../electron/cli/talk';
import type { TurnReport } from '../electron/pipeline/report';
import { MODELS, tempDir } from './helpers';
import { scriptedServer, speechOnlyModels, type ScriptedServer } from './scripted-tools-server';

const GB = { voice: 'en-gb+m3', rate: 150, pitch: 50 };
const US = { voice: 'en-us', rate: 150, pitch: 50 };
const RATE = 16000;

let server: ScriptedServer;
let speechModels = '';
const dir = tempDir('lva-memory-talk-');

/** The scripted server calls the remember tool (once per turn) when this is set. */
let callRemember = false;
const say = (content: string) => [JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: 'stop' }] })];

before(async () => {
  server = await scriptedServer((body) => {
    if (!callRemember) return say('Her name is Anna.');
    if (body.messages.at(-1)?.role === 'tool') return say('I will keep that in mind.');
    return [JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'remember', arguments: '{"fact":"my cat is called Tom"}' } }] }, finish_reason: 'tool_calls' }] })];
  });
  speechModels = await speechOnlyModels();
});
after(() => server.close());

/** The phrases, each followed by 3.5 s of silence (the end of its turn and its answer). */
async function clip(name: string, phrases: Array<[string, typeof GB]>): Promise<string> {
  const pieces: Float32Array[] = [new Float32Array(RATE / 2)];
  for (const [text, voice] of phrases) pieces.push(await espeakPhrase(text, voice, dir), new Float32Array(3.5 * RATE));
  const all = new Float32Array(pieces.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of pieces) (all.set(p, at), (at += p.length));
  const file = path.join(dir, `${name}.wav`);
  await writeWavFile(file, all, RATE);
  return file;
}

async function talk(input: string, settings: object, models: string): Promise<TurnReport[]> {
  const file = path.join(dir, 'settings.json');
  await writeFile(file, JSON.stringify({ llm: { maxTokens: 16, ...settings } }));
  const report = path.join(dir, 'report.json');
  // No --memory: memory.json is kept beside the settings file, as the app keeps it.
  const code = await talkMain(['--input', input, '--models', models, '--settings', file, '--tail', '1', '--fast', '--quiet', '--report', report]);
  assert.equal(code, 0);
  return (JSON.parse(readFileSync(report, 'utf8')) as { turns: TurnReport[] }).turns;
}

const factsOnDisk = () => (JSON.parse(readFileSync(path.join(dir, 'memory.json'), 'utf8')) as { facts: Array<{ text: string }> }).facts.map((f) => f.text);
const SERVER = { provider: 'openai-compatible', server: { baseUrl: '', model: 'm' } };

describe('memory across talk runs with one settings folder (real speech engines)', () => {
  it('keeps two facts said as local commands, answered without the language model', async () => {
    const turns = await talk(await clip('keep', [['please add the fact that my sister is anna', GB], ['please add the fact that my brother is tom', GB]]), { ...SERVER, server: { ...SERVER.server, baseUrl: server.baseUrl } }, speechModels);
    assert.deepEqual(turns.map((t) => t.command?.name), ['remember', 'remember'], JSON.stringify(turns.map((t) => t.userText)));
    assert.ok(turns.every((t) => !t.llmUsed && t.timings.firstAudioMs !== null), 'answered by voice, not by the model');
    assert.match(turns[0]!.assistantText, /^Okay, I'll remember that your sister is an+a\.$/);
    assert.equal(server.requests.length, 0);
    const facts = factsOnDisk();
    assert.equal(facts.length, 2);
    assert.match(facts[0]!, /^my sister is an+a$/);
    assert.match(facts[1]!, /^my brothe?r? is tom$/);
  });

  it('a local model run has them in its prompt', async () => {
    const turns = await talk(await clip('ask-local', [["what is my sister's name", GB]]), {}, MODELS);
    assert.equal(turns.length, 1);
    assert.equal(turns[0]!.llmUsed, true);
    assert.equal(turns[0]!.memory?.facts, 2);
    assert.ok(turns[0]!.memory!.tokens > 0);
  });

  it('a server gets them in the system prompt; then one fact is forgotten, then every one, each said back', async () => {
    const turns = await talk(
      await clip('ask-server-forget', [["what is my sister's name", GB], ['cancel the fact about my sister', US], ['cancel the facts', US]]),
      { ...SERVER, server: { ...SERVER.server, baseUrl: server.baseUrl } },
      speechModels,
    );
    assert.equal(turns.length, 3, JSON.stringify(turns.map((t) => t.userText)));
    const system = String(server.requests[0]!.messages[0]!.content);
    assert.equal(server.requests[0]!.messages[0]!.role, 'system');
    assert.match(system, /What the user asked you to remember[^\n]*\n- my sister is an+a \(\d{4}-\d\d-\d\d\)\n- my brothe?r? is tom/);
    assert.deepEqual(turns[0]!.memory, { facts: 2, tokens: turns[0]!.memory!.tokens });
    const [, one, all] = turns as [TurnReport, TurnReport, TurnReport];
    assert.equal(one.command?.name, 'forget');
    assert.match(one.assistantText, /^Okay, I forgot that your sister is an+a\.$/);
    assert.ok(one.timings.firstAudioMs !== null);
    assert.equal(all.command?.name, 'forget');
    assert.equal(all.assistantText, 'Okay, I forgot everything you asked me to remember.');
    assert.ok(all.timings.firstAudioMs !== null);
    assert.deepEqual(factsOnDisk(), []);
  });

  it('the model may call the remember tool for words the commands do not know; the fact is kept', async () => {
    callRemember = true;
    const from = server.requests.length;
    const turns = await talk(await clip('tool', [["what is my sister's name", GB]]), { ...SERVER, server: { ...SERVER.server, baseUrl: server.baseUrl } }, speechModels);
    assert.deepEqual(server.requests[from]!.tools?.map((t) => t.function.name).filter((n) => ['remember', 'forget', 'search_history'].includes(n)), ['remember', 'forget', 'search_history']);
    assert.deepEqual(turns[0]!.tools?.map((u) => [u.name, u.ok]), [['remember', true]]);
    assert.equal(turns[0]!.assistantText, 'I will keep that in mind.');
    assert.deepEqual(factsOnDisk(), ['my cat is called Tom']);
  });
});
