/**
 * The real-size stand-ins' generators at their small scale (the same code as the gigabyte files
 * `bench --real-size` writes): every one is written, found by the resolver through the stand-ins'
 * catalog and loaded and run once by the model check in its own process, as `npm run models --
 * verify --load` does. The language model stand-in tokenizes exactly as llama.cpp's Qwen2
 * tokenizer test expects, and the benchmark's scripted words follow the tokens generated.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { checkModel } from '../electron/model-check/check';
import { LlamaEngine } from '../electron/engines/llm';
import type { ChatMessage, LanguageModel } from '../electron/engines/llm-types';
import { CUT_MARK } from '../electron/pipeline/respond/conversation';
import { SCRIPTED_ANSWERS, scriptedAnswer, scriptedTextModel, wordsHeard } from '../electron/bench/scripted-words';
import { DEFAULT_CATALOG } from '../native-models/catalog';
import { modelDir, resolveModel } from '../native-models/resolver';
import { llamaCppSourceFile } from '../native-models/standins/llama-cpp-source';
import { STANDIN_GENERATORS, writeStandins, type StandinRecord } from '../native-models/standins/index';
import type { ModelEntry } from '../native-models/types';

let root: string;
let records: StandinRecord[];
let catalog: ModelEntry[];

before(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'lva-standins-'));
  ({ records, catalog } = await writeStandins(root, { scale: 'small' }));
});
after(() => rmSync(root, { recursive: true, force: true }));

describe('real-size stand-ins, small scale', () => {
  test('every generator writes the files its catalog entry names, with the sizes it records', () => {
    assert.equal(records.length, STANDIN_GENERATORS.length);
    for (const r of records) {
      const entry = DEFAULT_CATALOG.find((e) => e.id === r.id)!;
      for (const f of r.files) {
        assert.ok(entry.files.some((e) => e.name === f.name), `${r.id}: ${f.name} is a catalog file`);
        assert.equal(statSync(path.join(modelDir(root, entry), f.name)).size, f.bytes, `${r.id}: ${f.name}`);
        assert.match(f.sha256, /^[0-9a-f]{64}$/);
      }
    }
  });

  test('a second write keeps what is there', async () => {
    const lines: string[] = [];
    await writeStandins(root, { scale: 'small', ids: [records[0]!.id], log: (l) => lines.push(l) });
    assert.match(lines.join('\n'), /^kept/);
  });

  for (const g of STANDIN_GENERATORS) {
    test(`${g.id} loads and runs through the resolver and the model check`, async () => {
      const entry = catalog.find((e) => e.id === g.id)!;
      const check = await checkModel(await resolveModel(entry, [root]), { timeoutMs: 120_000 });
      assert.ok(check.ok, check.ok ? '' : check.reason);
    });
  }
});

describe('the language model stand-in', () => {
  let engine: LlamaEngine;
  before(async () => {
    const entry = catalog.find((e) => e.id === 'qwen2.5-1.5b-instruct-q4_k_m')!;
    engine = await LlamaEngine.load(await resolveModel(entry, [root]), { systemPrompt: 'You are a voice assistant.', gpu: 'cpu', gpuLayers: 0, contextSize: 1024, threads: 1 });
  });
  after(() => engine?.dispose());

  test("takes node-llama-cpp's Qwen chat format from the real chat template", () => {
    assert.equal(engine.chatFormat, 'Qwen');
  });

  test("tokenizes llama.cpp's Qwen2 tokenizer test inputs into exactly the expected tokens", () => {
    const inputs = llamaCppSourceFile('models/ggml-vocab-qwen2.gguf.inp').toString('utf8').split('\n__ggml_vocab_test__\n');
    const outputs = llamaCppSourceFile('models/ggml-vocab-qwen2.gguf.out').toString('utf8').split('\n');
    let compared = 0;
    inputs.forEach((text, i) => {
      const expected = (outputs[i] ?? '').trim().split(/\s+/).filter(Boolean).length;
      // The last input keeps the file's final newline out of the split.
      if (i === inputs.length - 1 || text.length === 0) return;
      assert.equal(engine.countTokens(text), expected, JSON.stringify(text));
      compared++;
    });
    assert.ok(compared > 20, `compared ${compared} inputs`);
  });

  test('the benchmark hands on a scripted answer cut to the tokens it generated', async () => {
    const model = scriptedTextModel(engine, 24);
    const before = engine.tokenUsage().output;
    let streamed = '';
    const result = await model.generate([{ role: 'user', text: 'what is the weather like today' }], { maxTokens: 200, temperature: 0.7, onText: (d) => (streamed += d) });
    const expected = scriptedAnswer(SCRIPTED_ANSWERS[0]!, 24, (t) => engine.countTokens(t));
    assert.equal(result.text, expected);
    assert.equal(streamed, expected);
    assert.ok(engine.countTokens(expected) <= 24 && engine.countTokens(expected) >= 20, expected);
    const generated = engine.tokenUsage().output - before;
    assert.ok(generated >= 20 && generated <= 25, `generated ${generated} tokens`);
  });

  test('later prompts show the model its own words for an answer, whole or cut where the user stopped it', async () => {
    // The stand-in itself, watched: what it wrote, and what each prefill hands it.
    let wrote = '';
    const fed: (readonly ChatMessage[])[] = [];
    const watched: LanguageModel = {
      info: engine.info,
      countTokens: (t) => engine.countTokens(t),
      generate: async (messages, o) => {
        const r = await engine.generate(messages, o);
        wrote = r.text;
        return r;
      },
      prefill: (messages, tools) => (fed.push(messages), engine.prefill(messages, tools)),
      dispose: async () => {},
    };
    const model = scriptedTextModel(watched, 12);
    let said = '';
    await model.generate([{ role: 'user', text: 'hi' }], { maxTokens: 200, temperature: 0, onText: (d) => (said += d) });
    assert.ok(wrote.length > 0 && said !== wrote, 'the scripted words stand in for what the model wrote');
    const heard = said.split(' ').slice(0, 3).join(' ');
    await model.prefill!([{ role: 'user', text: 'hi' }, { role: 'assistant', text: said }, { role: 'user', text: 'and' }]);
    await model.prefill!([{ role: 'user', text: 'hi' }, { role: 'assistant', text: `${heard}${CUT_MARK}` }, { role: 'user', text: 'and' }]);
    assert.equal(fed[0]![1]!.text, wrote);
    const cut = fed[1]![1]!.text;
    assert.ok(cut.endsWith(CUT_MARK) && wrote.startsWith(cut.slice(0, -CUT_MARK.length)) && cut.length < wrote.length, `the cut answer is a share of its own words, marked as cut: ${JSON.stringify(cut)}`);
  });
});

describe('scripted words (bench only)', () => {
  const segments = [
    { text: 'set a timer for', startMs: 500, endMs: 1500 },
    { text: 'ten minutes', startMs: 2100, endMs: 2900 },
  ];
  test('the words heard are the segments so far, a share of the one under way', () => {
    assert.equal(wordsHeard(segments, 0, 400), '');
    assert.equal(wordsHeard(segments, 0, 1000), 'set a');
    assert.equal(wordsHeard(segments, 0, 2000), 'set a timer for');
    assert.equal(wordsHeard(segments, 0, 5000), 'set a timer for ten minutes');
    assert.equal(wordsHeard(segments, 1600, 5000), 'ten minutes');
  });
  test('a scripted answer is the longest run of whole words within the count', () => {
    const count = (t: string) => t.split(' ').filter(Boolean).length;
    assert.equal(scriptedAnswer('one two three four', 2, count), 'one two');
    assert.equal(scriptedAnswer('one two three four', 9, count), 'one two three four');
  });
});
