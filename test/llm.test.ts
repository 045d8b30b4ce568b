/**
 * The real LlamaEngine (node-llama-cpp) with the stories260K test model: streaming, abort
 * mid-reply, history edits after barge-in, context overflow, and the backend report.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatHistoryItem } from 'node-llama-cpp';
import { LlamaEngine, type LlmOptions } from '../electron/engines/llm';
import { pickModel } from '../native-models/resolver';
import type { ResolvedModel } from '../native-models/types';
import { MODEL_ROOTS } from './engine-fixtures';

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

/** The engine exposes no read access to its chat history; the tests read node-llama-cpp's own. */
function history(e: LlamaEngine): ChatHistoryItem[] {
  return (e as unknown as { session: { getChatHistory(): ChatHistoryItem[] } }).session.getChatHistory();
}

before(async () => {
  resolved = await pickModel('llm', MODEL_ROOTS);
  assert.equal(resolved.entry.id, 'test-llm-stories260k');
  engine = await LlamaEngine.load(resolved, OPTS);
});

after(async () => {
  await engine?.dispose();
});

describe('LlamaEngine (stories260K)', () => {
  test('reports its backend and offload honestly', () => {
    const info = engine.info;
    assert.ok(['cuda', 'vulkan', 'metal', 'cpu'].includes(info.backend), `backend ${info.backend}`);
    assert.ok(info.totalLayers > 0, `totalLayers ${info.totalLayers}`);
    assert.ok(info.gpuLayers >= 0 && info.gpuLayers <= info.totalLayers, `gpuLayers ${info.gpuLayers}/${info.totalLayers}`);
    if (info.backend === 'cpu') assert.equal(info.gpuLayers, 0, 'the CPU backend offloads no layer');
    if (info.gpuDevices.some((d) => SOFTWARE_GPU.test(d))) {
      assert.equal(info.backend, 'cpu', `software GPU ${info.gpuDevices.join(', ')} must not be used`);
    }
    if (info.softwareGpuSkipped) assert.equal(info.backend, 'cpu');
    assert.equal(info.contextSize, 1024);
    assert.ok(info.loadMs > 0);
  });

  test('generate streams the reply in many deltas that add up to the returned text', async () => {
    const deltas: string[] = [];
    const r = await engine.generate('Tell me a story about a dragon.', {
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
      const p = engine.generate('Tell me a long story about a brave knight.', {
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
        const p = engine.generate('Tell me a story about a big red dragon and a small blue bird.', {
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

  test('after an aborted reply, history holds what the user heard', async () => {
    await engine.resetConversation();
    const ac = new AbortController();
    let n = 0;
    const prompt = 'Tell me a story about a cat.';
    const r = await engine.generate(prompt, {
      signal: ac.signal,
      maxTokens: 200,
      temperature: 0.8,
      onText: () => {
        if (++n === 10) ac.abort();
      },
    });
    assert.equal(r.stopReason, 'abort');
    const before = history(engine);
    assert.equal(before.at(-1)?.type, 'model');

    engine.replaceLastReply('heard part', true);
    const h = history(engine);
    assert.equal(h.length, before.length);
    assert.deepEqual(h.at(-1), { type: 'model', response: ['heard part…'] });
    assert.deepEqual(h.at(-2), { type: 'user', text: prompt });
    assert.deepEqual(h[0], { type: 'system', text: OPTS.systemPrompt });

    engine.replaceLastReply('all of it', false);
    const edited = history(engine);
    assert.deepEqual(edited.at(-1), { type: 'model', response: ['all of it'] });

    // The conversation goes on from the edited history.
    const next = await engine.generate('And then?', { maxTokens: 16, temperature: 0, onText: () => {} });
    assert.ok(next.text.length > 0);
    const h2 = history(engine);
    assert.equal(h2.length, h.length + 2);
    assert.deepEqual(h2[h.length - 1], { type: 'model', response: ['all of it'] });

    // A continued turn: the last exchange goes, the edited history stays.
    engine.dropLastExchange();
    assert.deepEqual(history(engine), edited);
  });

  test('context overflow: 15 turns in a 512-token context never throw', async () => {
    const small = await LlamaEngine.load(resolved, { ...OPTS, contextSize: 512 });
    try {
      assert.equal(small.info.contextSize, 512);
      let total = 0;
      for (let i = 0; i < 15; i++) {
        let n = 0;
        const r = await small.generate(`Tell me story number ${i} about a cat and a dog.`, {
          maxTokens: 64,
          temperature: 0.8,
          onText: () => n++,
        });
        assert.ok(n > 0 && r.text.length > 0, `turn ${i} produced nothing (${r.stopReason})`);
        total += n;
      }
      // The conversation really outgrew the context (old turns had to be dropped).
      assert.ok(total > small.info.contextSize, `only ${total} chunks in 15 turns`);
    } finally {
      await small.dispose();
    }
  });
});
