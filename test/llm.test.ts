/**
 * The real LlamaEngine (node-llama-cpp) with the stories260K test model: streaming, abort
 * mid-reply, answering from the history it is given (edited after barge-in), reuse of what it
 * already evaluated, context overflow, and the backend report.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatHistoryItem } from 'node-llama-cpp';
import { existsSync, readdirSync } from 'node:fs';
import { LlamaEngine, notAGpu, type LlmOptions } from '../electron/engines/llm';
import type { ChatMessage } from '../electron/engines/llm-types';
import { Conversation } from '../electron/pipeline/respond/conversation';
import { pickModel } from '../native-models/resolver';
import type { ResolvedModel } from '../native-models/types';
import { MODEL_ROOTS } from './engine-fixtures';
import { benchMemoryBook } from '../electron/bench/memory-facts';
import { memorySection } from '../electron/memory/memory-prompt';

const OPTS: LlmOptions = {
  systemPrompt: 'You are a helpful assistant.',
  gpu: 'auto',
  gpuLayers: 'auto',
  contextSize: 1024,
  threads: 1,
};
/** "An abort mid-reply stops token delivery within 100 ms." */
const ABORT_LIMIT_MS = 100;
const SOFTWARE_GPU = /llvmpipe|lavapipe|softpipe|swiftshader|microsoft basic render/i;

let resolved: ResolvedModel;
let engine: LlamaEngine;

/** What node-llama-cpp last evaluated (the history given, then the reply), read from its own session. */
function evaluated(e: LlamaEngine): ChatMessage[] {
  const items = (e as unknown as { session: { getChatHistory(): ChatHistoryItem[] } }).session.getChatHistory();
  return items.map((h) =>
    h.type === 'model' ? { role: 'assistant', text: h.response.filter((r) => typeof r === 'string').join('') } : { role: h.type, text: typeof h.text === 'string' ? h.text : JSON.stringify(h.text) },
  );
}

/** Prompt tokens the engine's context sequence has evaluated so far. */
function inputTokens(e: LlamaEngine): number {
  return (e as unknown as { session: { sequence: { tokenMeter: { usedInputTokens: number } } } }).session.sequence.tokenMeter.usedInputTokens;
}

/** A one-question conversation. */
const ask = (text: string): ChatMessage[] => [
  { role: 'system', text: OPTS.systemPrompt },
  { role: 'user', text },
];

before(async () => {
  resolved = await pickModel('llm', MODEL_ROOTS);
  assert.equal(resolved.entry.id, 'test-llm-stories260k');
  engine = await LlamaEngine.load(resolved, OPTS);
});

after(async () => {
  await engine?.dispose();
});

/** Vulkan drivers that render on the CPU (Mesa's lavapipe), as Debian's mesa-vulkan-drivers installs them; .ci/run installs it. */
function softwareVulkanInstalled(): boolean {
  const dir = '/usr/share/vulkan/icd.d';
  return existsSync(dir) && readdirSync(dir).some((f) => f.startsWith('lvp_icd'));
}

describe('GPU backends that are the CPU', () => {
  test('no device, or only software renderers, is not a GPU; a real device is', () => {
    assert.match(notAGpu('vulkan', [])!.cpuReason, /^Vulkan found no GPU device; the language model runs on the CPU\.$/);
    assert.equal(notAGpu('vulkan', ['llvmpipe (LLVM 19.1.7, 256 bits)'])!.cpuReason, 'Vulkan found only a software renderer (llvmpipe (LLVM 19.1.7, 256 bits)); the language model runs on the CPU.');
    assert.equal(notAGpu('vulkan', ['NVIDIA GeForce RTX 4070']), null);
    assert.equal(notAGpu('vulkan', ['llvmpipe', 'AMD Radeon RX 7600']), null, 'a real device beside a software one is used');
  });

  test('with a software Vulkan driver installed, the real detection loads the CPU backend and says why', { skip: !softwareVulkanInstalled() && 'no lavapipe ICD here (.ci/run installs mesa-vulkan-drivers)' }, () => {
    const info = engine.info;
    assert.equal(info.backend, 'cpu');
    assert.equal(info.gpuLayers, 0);
    // node-llama-cpp's Vulkan build (an optional dependency, installed on x64 Linux) loads and finds the driver first.
    if (existsSync(new URL('../node_modules/@node-llama-cpp/linux-x64-vulkan', import.meta.url))) {
      assert.match(info.cpuReason ?? '', /^Vulkan found (no GPU device|only a software renderer)/);
    }
  });
});

describe('LlamaEngine (stories260K)', () => {
  test('reports its backend and offload honestly', () => {
    const info = engine.info;
    assert.ok(['cuda', 'vulkan', 'metal', 'cpu'].includes(info.backend), `backend ${info.backend}`);
    assert.ok(info.totalLayers > 0, `totalLayers ${info.totalLayers}`);
    assert.ok(info.gpuLayers >= 0 && info.gpuLayers <= info.totalLayers, `gpuLayers ${info.gpuLayers}/${info.totalLayers}`);
    if (info.backend === 'cpu') assert.equal(info.gpuLayers, 0, 'the CPU backend offloads no layer');
    // Mapped, the file would stay resident beside llama.cpp's CPU copy of the weights (docs/benchmarks.md).
    if (info.backend === 'cpu') assert.equal(info.mappedWeights, false, 'on the CPU the weights are read, not mapped');
    if (info.gpuDevices.some((d) => SOFTWARE_GPU.test(d))) {
      assert.equal(info.backend, 'cpu', `software GPU ${info.gpuDevices.join(', ')} must not be used`);
    }
    if (info.softwareGpuSkipped) assert.equal(info.backend, 'cpu');
    if (info.gpuLayers === 0) assert.equal(info.backend, 'cpu', 'a backend that offloaded no layer is the CPU backend');
    if (info.backend !== 'cpu') assert.equal(info.cpuReason, undefined);
    assert.equal(info.contextSize, 1024);
    assert.ok(info.loadMs > 0);
  });

  test('generate streams the reply in many deltas that add up to the returned text', async () => {
    const deltas: string[] = [];
    const r = await engine.generate(ask('Tell me a story about a dragon.'), {
      maxTokens: 64,
      temperature: 0,
      onText: (d) => deltas.push(d),
    });
    assert.ok(deltas.length > 5, `only ${deltas.length} onText calls`);
    assert.equal(deltas.join(''), r.text);
    assert.ok(r.text.trim().length > 0);
    assert.ok(['maxTokens', 'eogToken', 'stopGenerationTrigger'].includes(r.stopReason), r.stopReason);
  });

  for (const how of ['inside onText', 'from the next macrotask'] as const) {
    test(`abort mid-reply (${how}) stops delivery within ${ABORT_LIMIT_MS} ms`, async (t) => {
      const ac = new AbortController();
      const delivered: string[] = [];
      let abortedAt = 0;
      const lateChunksMs: number[] = [];
      const doAbort = () => {
        abortedAt = performance.now();
        ac.abort();
      };
      const p = engine.generate(ask('Tell me a long story about a brave knight.'), {
        signal: ac.signal,
        maxTokens: 400,
        temperature: 0.8,
        onText: (d) => {
          if (abortedAt) lateChunksMs.push(performance.now() - abortedAt);
          delivered.push(d);
          if (delivered.length === 10) {
            if (how === 'inside onText') doAbort();
            else setImmediate(doAbort);
          }
        },
      });
      const r = await p;
      const resolvedMs = performance.now() - abortedAt;
      t.diagnostic(`resolved ${resolvedMs.toFixed(2)} ms after abort(), ${lateChunksMs.length} chunk(s) after it`);
      assert.ok(abortedAt > 0, `the reply ended (${r.stopReason}) before its 10th chunk`);
      assert.equal(r.stopReason, 'abort');
      assert.ok(resolvedMs <= ABORT_LIMIT_MS, `generate resolved ${resolvedMs.toFixed(1)} ms after abort()`);
      for (const ms of lateChunksMs) assert.ok(ms <= ABORT_LIMIT_MS, `a chunk arrived ${ms.toFixed(1)} ms after abort()`);
      assert.ok(delivered.length < 400);
      // What was shown is the start of what the model wrote.
      assert.ok(r.text.startsWith(delivered.join('')), `returned "${r.text}" vs delivered "${delivered.join('')}"`);
    });
  }

  test(
    'abort before the first token resolves with stopReason abort',
    async () => {
      for (const when of ['before the call', 'right after the call'] as const) {
        const ac = new AbortController();
        if (when === 'before the call') ac.abort();
        const chunks: string[] = [];
        const p = engine.generate(ask('Tell me a story about a big red dragon and a small blue bird.'), {
          signal: ac.signal,
          maxTokens: 64,
          temperature: 0,
          onText: (d) => chunks.push(d),
        });
        ac.abort();
        const r = await p;
        assert.equal(r.stopReason, 'abort', when);
        assert.deepEqual(chunks, [], when);
      }
    },
  );

  test('each turn is answered from the history it is given: an interrupted reply as heard, a dropped exchange gone', async () => {
    const conversation = new Conversation(OPTS.systemPrompt);
    const ac = new AbortController();
    let n = 0;
    const prompt = 'Tell me a story about a cat.';
    conversation.append(0, prompt);
    const r = await engine.generate(conversation.messages(), {
      signal: ac.signal,
      maxTokens: 200,
      temperature: 0.8,
      onText: () => {
        if (++n === 10) ac.abort();
      },
    });
    assert.equal(r.stopReason, 'abort');
    conversation.settle(0, { type: 'interrupted', heard: 'heard part' });

    conversation.append(1, 'And then?');
    const next = await engine.generate(conversation.messages(), { maxTokens: 16, temperature: 0, onText: () => {} });
    assert.ok(next.text.length > 0);
    assert.deepEqual(evaluated(engine), [
      { role: 'system', text: OPTS.systemPrompt },
      { role: 'user', text: prompt },
      { role: 'assistant', text: 'heard part…' },
      { role: 'user', text: 'And then?' },
      { role: 'assistant', text: next.text },
    ]);

    // A continued turn: its exchange is not in the next history.
    conversation.settle(1, { type: 'dropped' });
    conversation.append(2, 'And then what happened?');
    const third = await engine.generate(conversation.messages(), { maxTokens: 8, temperature: 0, onText: () => {} });
    assert.deepEqual(evaluated(engine), [...conversation.messages(), { role: 'assistant', text: third.text }]);
  });

  test('a growing history is not evaluated again: each turn evaluates about its own new tokens', async (t) => {
    const conversation = new Conversation(OPTS.systemPrompt);
    const perTurn: number[] = [];
    for (let turn = 0; turn < 8; turn++) {
      conversation.append(turn, `Tell me more about the cat, part ${turn}.`);
      const before = inputTokens(engine);
      const r = await engine.generate(conversation.messages(), { maxTokens: 24, temperature: 0, onText: () => {} });
      perTurn.push(inputTokens(engine) - before);
      conversation.settle(turn, { type: 'whole', text: r.text });
    }
    const history = conversation.messages().reduce((n, m) => n + engine.countTokens(m.text), 0);
    t.diagnostic(`prompt tokens evaluated per turn: ${perTurn.join(' ')} (history now ${history} tokens)`);
    // Re-evaluating the history would make the count grow by about a reply (24 tokens) every turn.
    assert.ok(Math.max(...perTurn.slice(1)) <= perTurn[1]! + 8, `per turn: ${perTurn.join(' ')}`);
    assert.ok(history > 4 * Math.max(...perTurn), `per turn: ${perTurn.join(' ')}, history ${history}`);
  });

  test('prefill: the words fed while the user spoke are not evaluated again when the answer is asked', async (t) => {
    const words = 'Once upon a time there was a little cat who lived in a big house with a red door and a garden full of flowers';
    const cold = ask(`${words}. What did the cat see?`);
    // Without a prefill: the whole request is evaluated when asked (a fresh system prompt keeps the earlier tests' context out).
    const system = 'You are a kind assistant.';
    const withSystem = (m: ChatMessage[]) => [{ role: 'system' as const, text: system }, ...m.slice(1)];
    await engine.generate(withSystem(ask('Hello.')), { maxTokens: 1, temperature: 0, onText: () => {} });
    let before = inputTokens(engine);
    await engine.generate(withSystem(cold), { maxTokens: 1, temperature: 0, onText: () => {} });
    const unfed = inputTokens(engine) - before;
    // With prefills as the words came (each a longer prefix), then the answer: only the last words and the reply's opening.
    await engine.generate(withSystem(ask('Hello.')), { maxTokens: 1, temperature: 0, onText: () => {} });
    const parts = words.split(' ');
    let fed = 0;
    for (const n of [6, 12, parts.length]) {
      before = inputTokens(engine);
      await engine.prefill(withSystem(ask(parts.slice(0, n).join(' '))));
      fed += inputTokens(engine) - before;
    }
    before = inputTokens(engine);
    await engine.generate(withSystem(cold), { maxTokens: 1, temperature: 0, onText: () => {} });
    const after = inputTokens(engine) - before;
    t.diagnostic(`prompt tokens at the answer: ${unfed} unfed, ${after} after prefills (${fed} fed ahead)`);
    assert.ok(fed >= engine.countTokens(words) - 4, `the prefills evaluated the words (${fed})`);
    assert.ok(after <= unfed / 2, `${after} tokens left to evaluate after prefills, ${unfed} without`);
  });

  test('prefill gives way: an answer asked while a prefill waits stops it, and the answer is whole', async () => {
    const long = Array.from({ length: 40 }, (_, i) => `the cat number ${i} sat on the mat`).join(' ');
    const prefill = engine.prefill(ask(long));
    const answer = await engine.generate(ask('Tell me a story.'), { maxTokens: 8, temperature: 0, onText: () => {} });
    await prefill;
    assert.ok(answer.text.length > 0);
    assert.equal(evaluated(engine).at(-2)?.text, 'Tell me a story.');
  });

  test('context overflow: 15 turns in a 512-token context never throw', async () => {
    const small = await LlamaEngine.load(resolved, { ...OPTS, contextSize: 512 });
    try {
      assert.equal(small.info.contextSize, 512);
      // As the pipeline keeps it: trimmed before each turn, settled with the whole answer.
      const conversation = new Conversation(OPTS.systemPrompt);
      let total = 0;
      for (let i = 0; i < 15; i++) {
        let n = 0;
        conversation.trim(small.info.contextSize, (text) => small.countTokens(text));
        conversation.append(i, `Tell me story number ${i} about a cat and a dog.`);
        const r = await small.generate(conversation.messages(), {
          maxTokens: 64,
          temperature: 0.8,
          onText: () => n++,
        });
        assert.ok(n > 0 && r.text.length > 0, `turn ${i} produced nothing (${r.stopReason})`);
        conversation.settle(i, { type: 'whole', text: r.text });
        total += n;
      }
      // The conversation really outgrew the context (old turns had to be dropped).
      assert.ok(total > small.info.contextSize, `only ${total} chunks in 15 turns`);
      assert.ok(conversation.messages().length < 31, 'old turns were dropped');
    } finally {
      await small.dispose();
    }
  });
});

test("200 remembered facts in the system prompt stay within memory.maxTokens, counted by the model's own tokenizer", () => {
  const facts = benchMemoryBook(200).facts;
  for (const maxTokens of [120, 400, 4000]) {
    const s = memorySection(facts, maxTokens, (t) => engine.countTokens(t));
    assert.ok(s.facts > 0 && s.facts < 200, `${s.facts} facts in ${maxTokens} tokens`);
    assert.equal(engine.countTokens(s.text), s.tokens);
    assert.ok(s.tokens <= maxTokens, `${s.tokens} <= ${maxTokens}`);
  }
});
