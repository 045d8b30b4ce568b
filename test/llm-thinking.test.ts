/**
 * Spoken answers never think first (issue 27: "thinking turned off for spoken answers"), on the
 * real LlamaEngine with the stories260K stand-in. The stand-in has no thought syntax of its own, so
 * it runs with a chat format whose thought segment opens at " the", a word it writes in every
 * story. Left to node-llama-cpp's default budget, everything from there to the next "." is a
 * thought, kept out of the spoken text (the control below). With thinking off, a thought that
 * begins is closed at once, empty: every word the model writes is spoken.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ChatWrapper, Llama2ChatWrapper, type ChatHistoryItem, type ChatModelResponse, type ChatWrapperSettings, type LlamaChatSession } from 'node-llama-cpp';
import { LlamaEngine, type LlmOptions } from '../electron/engines/llm';
import type { ChatMessage } from '../electron/engines/llm-types';
import type { ToolSpec } from '../electron/engines/tool-calls';
import { pickModel } from '../native-models/resolver';
import { MODEL_ROOTS } from './engine-fixtures';

const OPTS: LlmOptions = { systemPrompt: 'You are a helpful assistant.', gpu: 'auto', gpuLayers: 'auto', contextSize: 2048, threads: 1 };

/** Llama2Chat whose thoughts begin at " the" and end at ".". */
class StoryThinking extends Llama2ChatWrapper {
  override readonly wrapperName = 'StoryThinking';
  override readonly settings: ChatWrapperSettings = { ...ChatWrapper.defaultSettings, segments: { thought: { prefix: ' the', suffix: '.' } } };
}

const READ_NOTES: ToolSpec = { name: 'read_notes', description: "Reads back the user's notes.", parameters: { type: 'object', properties: {} } };
const ask: ChatMessage[] = [
  { role: 'system', text: OPTS.systemPrompt },
  { role: 'user', text: 'Tell me a story about a dog.' },
];

let plain: LlamaEngine;
let thinking: LlamaEngine;

before(async () => {
  const resolved = await pickModel('llm', MODEL_ROOTS);
  assert.equal(resolved.entry.id, 'test-llm-stories260k');
  plain = await LlamaEngine.load(resolved, OPTS);
  thinking = await LlamaEngine.load(resolved, { ...OPTS, chatWrapper: new StoryThinking() });
});

after(async () => {
  await plain?.dispose();
  await thinking?.dispose();
});

const session = (e: LlamaEngine) => (e as unknown as { session: LlamaChatSession }).session;
/** The thought segments in the model's last answer, as node-llama-cpp recorded it. */
function thoughts(history: readonly ChatHistoryItem[]): string[] {
  const last = history.at(-1) as ChatModelResponse | undefined;
  assert.equal(last?.type, 'model');
  return last!.response.flatMap((r) => (typeof r === 'object' && r.type === 'segment' && r.segmentType === 'thought' ? [r.text] : []));
}

async function spoken(e: LlamaEngine, tools: boolean): Promise<{ chunks: string; text: string }> {
  let chunks = '';
  const r = await e.generate(ask, {
    maxTokens: 48,
    temperature: 0,
    onText: (t) => void (chunks += t),
    ...(tools ? { tools: [READ_NOTES], callTool: async () => 'No notes.' } : {}),
  });
  return { chunks, text: r.text };
}

describe('a model that could think answers at once (real engine)', () => {
  test('control: with a thought budget, this format hides words from the listener', async () => {
    const s = session(thinking);
    s.setChatHistory([{ type: 'system', text: OPTS.systemPrompt }]);
    const r = await s.promptWithMeta(ask[1]!.text, { maxTokens: 48, temperature: 0 });
    assert.ok(thoughts(s.getChatHistory()).some((t) => t.trim().length > 0), `words went into a thought: ${JSON.stringify(r.response)}`);
  });

  for (const tools of [false, true]) {
    test(`${tools ? 'with a tool offered' : 'without tools'}: every thought is closed empty, every word written is spoken`, async () => {
      assert.match((await spoken(plain, tools)).text, / the /, 'the stand-in writes " the" in its own format');
      const got = await spoken(thinking, tools);
      assert.ok(got.text.trim().split(/\s+/).length >= 10, got.text);
      assert.equal(got.chunks, got.text, 'what was streamed is the whole answer');
      // A thought that begins is closed at once, empty (as an empty <think></think> turns a reasoning model's thinking off).
      assert.deepEqual(thoughts(session(thinking).getChatHistory()).filter((t) => t !== ''), []);
    });
  }
});
