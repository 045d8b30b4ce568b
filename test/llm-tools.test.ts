/**
 * The local model's tool calls (issue 27) through node-llama-cpp's function calling, on the real
 * LlamaEngine with the stories260K stand-in. That model resolves to node-llama-cpp's Llama2Chat
 * format, whose calls are written in the generic `||call: name({...})` syntax, and it never writes
 * one (measured: none at temperature 0, none in 30 seeds at 0.8 after three example calls in the
 * history, none after example calls earlier in its own answer). So the calls themselves are
 * made with a chat format whose call syntax starts with " the", a word the stand-in writes in every
 * story: node-llama-cpp's own call detection, name and params grammars, parsing and continuation
 * then run on what the real model writes. Nothing in the engine is replaced.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ChatWrapper, Llama2ChatWrapper, type ChatHistoryItem, type ChatWrapperSettings, type ChatModelFunctionCall, type LlamaContextSequence } from 'node-llama-cpp';
import { historyItem, LlamaEngine, type LlmOptions } from '../electron/engines/llm';
import { grammarSchema, TOOL_FAILED_NOTICE } from '../electron/engines/llm-functions';
import type { ChatMessage, GenerateOptions } from '../electron/engines/llm-types';
import type { ToolCall, ToolSpec } from '../electron/engines/tool-calls';
import { Conversation } from '../electron/pipeline/respond/conversation';
import { pickModel } from '../native-models/resolver';
import type { ResolvedModel } from '../native-models/types';
import { MODEL_ROOTS } from './engine-fixtures';

const OPTS: LlmOptions = { systemPrompt: 'You are a helpful assistant.', gpu: 'auto', gpuLayers: 'auto', contextSize: 1024, threads: 1 };
const ABORT_LIMIT_MS = 100;

/** Llama2Chat with calls written `${prefix} name({...})`. */
function llama2CallingWith(name: string, prefix: string): ChatWrapper {
  const defaults = ChatWrapper.defaultSettings;
  return new (class extends Llama2ChatWrapper {
    override readonly wrapperName = name;
    override readonly settings: ChatWrapperSettings = { ...defaults, functions: { ...defaults.functions, call: { ...defaults.functions.call, prefix, prefixAlternateMatches: [] } } };
  })();
}

const ADD_NOTE: ToolSpec = {
  name: 'add_note',
  description: 'Saves a note for the user.',
  parameters: { type: 'object', properties: { text: { type: 'string', description: 'The note.' } }, required: ['text'] },
};
const READ_NOTES: ToolSpec = { name: 'read_notes', description: "Reads back the user's notes.", parameters: { type: 'object', properties: {} } };
/** Keywords the grammar cannot take, as MCP servers send them. */
const SET_TIMER: ToolSpec = {
  name: 'set_timer',
  description: 'Starts a timer.',
  parameters: {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: {
      minutes: { type: 'integer', minimum: 1, maximum: 120 },
      label: { anyOf: [{ type: 'string', pattern: '^[a-z ]+$' }, { type: 'null' }], default: null },
    },
    required: ['minutes'],
    additionalProperties: false,
  },
};
const TOOLS = [ADD_NOTE, READ_NOTES, SET_TIMER];

let resolved: ResolvedModel;
/** The stand-in's own chat format. */
let engine: LlamaEngine;
/** The same model, with calls that start with " the". */
let story: LlamaEngine;

before(async () => {
  resolved = await pickModel('llm', MODEL_ROOTS);
  assert.equal(resolved.entry.id, 'test-llm-stories260k');
  // Room for a few turns beside the functions' description (about 750 of this model's tokens).
  engine = await LlamaEngine.load(resolved, { ...OPTS, contextSize: 2048 });
  story = await LlamaEngine.load(resolved, { ...OPTS, chatWrapper: llama2CallingWith('StoryCall', ' the') });
});

after(async () => {
  await engine?.dispose();
  await story?.dispose();
});

const internals = (e: LlamaEngine) => (e as unknown as { session: { sequence: LlamaContextSequence; getChatHistory(): ChatHistoryItem[] } }).session;

const ask = (text: string): ChatMessage[] => [
  { role: 'system', text: OPTS.systemPrompt },
  { role: 'user', text },
];

/** A tool runner that records each call and checks it as the toolbox would. */
function recorder(result = (c: ToolCall) => `Saved: ${c.name}.`) {
  const calls: ToolCall[] = [];
  const callTool = async (call: ToolCall): Promise<string> => {
    calls.push(call);
    return result(call);
  };
  return { calls, callTool };
}

/** Every call names an offered tool and its arguments are a JSON object of what the schema asks. */
function assertCallsParse(calls: readonly ToolCall[]): void {
  const ids = new Set<string>();
  for (const c of calls) {
    assert.ok(TOOLS.some((t) => t.name === c.name), `called ${c.name}`);
    assert.ok(!ids.has(c.id), `id ${c.id} twice`);
    ids.add(c.id);
    const args: unknown = JSON.parse(c.arguments);
    assert.ok(typeof args === 'object' && args !== null && !Array.isArray(args), c.arguments);
    if (c.name === 'add_note') assert.equal(typeof (args as { text?: unknown }).text, 'string', c.arguments);
    if (c.name === 'set_timer') assert.ok(Number.isInteger((args as { minutes?: unknown }).minutes), c.arguments);
    if (c.name === 'read_notes') assert.deepEqual(args, {});
  }
}

/** The function-call items of the last answer node-llama-cpp evaluated. */
function lastCalls(e: LlamaEngine): ChatModelFunctionCall[] {
  const last = internals(e).getChatHistory().at(-1);
  assert.equal(last?.type, 'model');
  return last.type === 'model' ? last.response.filter((r): r is ChatModelFunctionCall => typeof r === 'object' && r.type === 'functionCall') : [];
}

/** The prompt's size in tokens for one question without tools, then with them offered (`callTool` given). */
async function promptSizes(e: LlamaEngine, callTool: GenerateOptions['callTool']) {
  const sequence = internals(e).sequence;
  await e.generate(ask('What time is it?'), { maxTokens: 1, temperature: 0, onText: () => {} });
  const without = sequence.contextTokens.length;
  const deltas: string[] = [];
  const result = await e.generate(ask('What time is it?'), options({ deltas, callTool, maxTokens: 1 }));
  assert.equal(deltas.join(''), result.text);
  return { without, offered: sequence.contextTokens.length, result };
}

function options(extra: Partial<GenerateOptions> & { deltas: string[] }): GenerateOptions {
  const { deltas, ...rest } = extra;
  return { maxTokens: 100, temperature: 0, tools: TOOLS, onText: (d) => deltas.push(d), ...rest };
}

describe('LlamaEngine tool calls (stories260K)', () => {
  test("the stand-in's own format (Llama2Chat, generic ||call: syntax) is offered the tools; whatever it answers, any call parses", async (t) => {
    assert.equal(engine.chatFormat, 'Llama2Chat');
    const { calls, callTool } = recorder();
    const { without, offered, result: r } = await promptSizes(engine, callTool);
    // The functions are described in the prompt (a few hundred tokens) when offered.
    assert.ok(offered > without + 100, `prompt ${without} tokens without tools, ${offered} with`);
    const deltas: string[] = [];

    const full = await engine.generate(ask('Please add a note: buy milk.'), options({ deltas, callTool, maxTokens: 80 }));
    t.diagnostic(`answered ${JSON.stringify(full.text.slice(0, 80))}… (${full.stopReason}), ${calls.length} call(s)`);
    assertCallsParse(calls);
    assert.equal(deltas.join(''), full.text);
    assert.ok(full.text.trim().length > 0);
    assert.ok(['maxTokens', 'eogToken', 'stopGenerationTrigger', 'toolRounds', 'toolCallFailed'].includes(full.stopReason), full.stopReason);
    assert.ok(['maxTokens', 'eogToken', 'stopGenerationTrigger'].includes(r.stopReason), r.stopReason);
  });

  test('a chat format with no call syntax is offered no tools: the model answers without them', async () => {
    assert.equal(engine.callsTools, true);
    assert.equal(story.callsTools, true);
    const none = await LlamaEngine.load(resolved, { ...OPTS, chatWrapper: llama2CallingWith('NoCall', '') });
    try {
      assert.equal(none.callsTools, false);
      const { calls, callTool } = recorder();
      const { without, offered, result } = await promptSizes(none, callTool);
      assert.equal(offered, without, 'the functions were described in the prompt');
      assert.equal(calls.length, 0);
      assert.equal(result.toolCalls, undefined);
    } finally {
      await none.dispose();
    }
  });

  test('a context too small for the functions\' description answers without them rather than fail', async () => {
    // The description of these three tools alone is about 750 of this model's tokens.
    const small = await LlamaEngine.load(resolved, { ...OPTS, contextSize: 512 });
    try {
      const { calls, callTool } = recorder();
      const { without, offered, result } = await promptSizes(small, callTool);
      assert.equal(offered, without, 'the functions were described in the prompt');
      assert.equal(calls.length, 0);
      assert.ok(result.text.length > 0);
    } finally {
      await small.dispose();
    }
  });

  test('the real model calls a tool: its arguments parse, each call runs once, and the answer goes on after the result', async (t) => {
    const { calls, callTool } = recorder();
    const deltas: string[] = [];
    const r = await story.generate(ask('Please add a note: buy milk.'), options({ deltas, callTool }));
    t.diagnostic(`calls ${calls.map((c) => `${c.name}(${c.arguments})`).join(', ')}; answer ${JSON.stringify(r.text.slice(0, 120))} (${r.stopReason})`);
    assert.ok(calls.length >= 1, `no call (${r.stopReason}): ${r.text}`);
    assert.ok(calls.length <= 3, `${calls.length} calls, more than 3 rounds`);
    assertCallsParse(calls);
    assert.equal(deltas.join(''), r.text);
    // node-llama-cpp was given each result, after its call, and wrote on after the first.
    const items = lastCalls(story);
    assert.deepEqual(
      items.map((i) => [i.name, JSON.stringify(i.params ?? {}), i.result]),
      calls.map((c) => [c.name, c.arguments, `Saved: ${c.name}.`]),
    );
    const last = internals(story).getChatHistory().at(-1);
    const afterFirst = last?.type === 'model' ? last.response.slice(last.response.findIndex((x) => typeof x === 'object')) : [];
    assert.ok(afterFirst.some((x) => typeof x === 'string' && x.trim()), 'no text after the first call');
    assert.notEqual(r.stopReason, 'toolCalls');
  });

  test('at most maxToolRounds rounds run; the request after them offers none and ends where the model begins another call', async () => {
    const { calls, callTool } = recorder();
    const deltas: string[] = [];
    const r = await story.generate(ask('Please add a note: buy milk.'), options({ deltas, callTool, maxToolRounds: 1 }));
    assert.equal(calls.length, 1, `${calls.length} calls`);
    assertCallsParse(calls);
    // The stand-in writes " the" again soon after: that is where a call would begin.
    assert.equal(r.stopReason, 'toolRounds', `${r.stopReason}: ${r.text}`);
    assert.equal(deltas.join(''), r.text);

    const none = recorder();
    const r0 = await story.generate(ask('Please add a note: buy milk.'), options({ deltas: [], callTool: none.callTool, maxToolRounds: 0 }));
    assert.equal(none.calls.length, 0);
    assert.equal(r0.stopReason, 'toolRounds');
  });

  test('without callTool, the calls the model asks for end the answer as toolCalls, and nothing runs', async () => {
    const deltas: string[] = [];
    const r = await story.generate(ask('Please add a note: buy milk.'), options({ deltas }));
    assert.equal(r.stopReason, 'toolCalls', r.text);
    assert.ok(r.toolCalls && r.toolCalls.length >= 1);
    assertCallsParse(r.toolCalls);
    assert.equal(deltas.join(''), r.text);
    assert.deepEqual(lastCalls(story), [], 'no call was run or recorded');
  });

  test('a call cut off in its arguments (maxTokens) ends the answer with a spoken notice, stopReason toolCallFailed', async () => {
    // At least 400 characters of note: far more than 60 tokens of this model.
    const long: ToolSpec = { ...ADD_NOTE, parameters: { type: 'object', properties: { text: { type: 'string', minLength: 400 } } } };
    const { calls, callTool } = recorder();
    const deltas: string[] = [];
    const r = await story.generate(ask('Please add a note: buy milk.'), options({ deltas, callTool, tools: [long], maxTokens: 60 }));
    assert.equal(r.stopReason, 'toolCallFailed', `${r.stopReason}: ${r.text}`);
    assert.equal(calls.length, 0);
    assert.equal(deltas.at(-1), r.text.trim() === TOOL_FAILED_NOTICE.trim() ? TOOL_FAILED_NOTICE.trimStart() : TOOL_FAILED_NOTICE);
    assert.equal(deltas.join(''), r.text);
  });

  test('an abort during a 5 s tool call returns within 100 ms with stopReason abort', async (t) => {
    const ac = new AbortController();
    let abortedAt = 0;
    const late: string[] = [];
    const deltas: string[] = [];
    let timer: NodeJS.Timeout | undefined;
    // A tool that ignores the signal: the engine must not wait for it.
    const callTool = (): Promise<string> =>
      new Promise((resolve) => {
        setTimeout(() => {
          abortedAt = performance.now();
          ac.abort();
        }, 50);
        timer = setTimeout(() => resolve('late'), 5000);
      });
    const r = await story.generate(ask('Please add a note: buy milk.'), {
      ...options({ deltas, callTool, signal: ac.signal }),
      onText: (d) => (abortedAt ? late.push(d) : deltas.push(d)),
    });
    const ms = performance.now() - abortedAt;
    clearTimeout(timer);
    t.diagnostic(`resolved ${ms.toFixed(1)} ms after abort()`);
    assert.ok(abortedAt > 0, `no call ran (${r.stopReason})`);
    assert.equal(r.stopReason, 'abort');
    assert.ok(ms <= ABORT_LIMIT_MS, `${ms.toFixed(1)} ms`);
    assert.deepEqual(late, []);
    // The engine takes the next answer at once.
    const next = await story.generate(ask('Tell me a story.'), { maxTokens: 8, temperature: 0, onText: () => {} });
    assert.ok(next.text.length > 0);
  });

  test(`abort mid-reply with tools offered stops delivery within ${ABORT_LIMIT_MS} ms`, async (t) => {
    const ac = new AbortController();
    const delivered: string[] = [];
    let abortedAt = 0;
    const late: number[] = [];
    const r = await engine.generate(ask('Tell me a long story about a brave knight.'), {
      ...options({ deltas: [], callTool: recorder().callTool, signal: ac.signal, maxTokens: 400, temperature: 0.8 }),
      onText: (d) => {
        if (abortedAt) late.push(performance.now() - abortedAt);
        delivered.push(d);
        if (delivered.length === 10) {
          abortedAt = performance.now();
          ac.abort();
        }
      },
    });
    const ms = performance.now() - abortedAt;
    t.diagnostic(`resolved ${ms.toFixed(2)} ms after abort(), ${late.length} chunk(s) after it`);
    assert.ok(abortedAt > 0, `ended (${r.stopReason}) before its 10th chunk`);
    assert.equal(r.stopReason, 'abort');
    assert.ok(ms <= ABORT_LIMIT_MS, `${ms.toFixed(1)} ms`);
    for (const l of late) assert.ok(l <= ABORT_LIMIT_MS, `a chunk ${l.toFixed(1)} ms after abort()`);
    assert.ok(r.text.startsWith(delivered.join('')));
  });

  test('an answer with tool rounds in the history renders (calls and results before its text) and the next turn is answered, with and without tools', async () => {
    const answered: ChatMessage = {
      role: 'assistant',
      text: 'I saved it.',
      tools: [
        {
          calls: [
            { id: 'call_0', name: 'add_note', arguments: '{"text":"milk"}' },
            { id: 'call_1', name: 'read_notes', arguments: 'not json' },
          ],
          results: [
            { id: 'call_0', content: 'Saved.' },
            { id: 'call_1', content: 'error: no notes' },
          ],
        },
      ],
    };
    const expected: ChatHistoryItem = {
      type: 'model',
      response: [
        { type: 'functionCall', name: 'add_note', params: { text: 'milk' }, result: 'Saved.', startsNewChunk: true },
        { type: 'functionCall', name: 'read_notes', params: {}, result: 'error: no notes', startsNewChunk: false },
        'I saved it.',
      ],
    };
    assert.deepEqual(historyItem(answered), expected);
    assert.deepEqual(historyItem({ role: 'assistant', text: 'Hello.' }), { type: 'model', response: ['Hello.'] });

    // The stand-in's format writes them into the prompt without functions offered.
    const rendered = new Llama2ChatWrapper().generateContextState({ chatHistory: [{ type: 'user', text: 'Note milk.' }, expected] }).contextText.toString();
    assert.match(rendered, /\|\|call: add_note\(\{"text": ?"milk"\}\)[\s\S]*Saved\.[\s\S]*\|\|call: read_notes[\s\S]*I saved it\./);

    const conversation: ChatMessage[] = [{ role: 'system', text: OPTS.systemPrompt }, { role: 'user', text: 'Note that I need milk.' }, answered, { role: 'user', text: 'And then?' }];
    const plain = await engine.generate(conversation, { maxTokens: 16, temperature: 0, onText: () => {} });
    assert.ok(plain.text.length > 0);
    assert.deepEqual(internals(engine).getChatHistory().at(2), expected);

    const withTools = await engine.generate(conversation, options({ deltas: [], callTool: recorder().callTool, maxTokens: 16 }));
    assert.ok(withTools.text.length > 0);
    assert.deepEqual(internals(engine).getChatHistory().at(2), expected);
  });

  test('a growing history with tools offered is not evaluated again: each turn evaluates about its own new tokens', async (t) => {
    const messages: ChatMessage[] = [{ role: 'system', text: OPTS.systemPrompt }];
    const meter = internals(engine).sequence.tokenMeter;
    const perTurn: number[] = [];
    for (let turn = 0; turn < 5; turn++) {
      messages.push({ role: 'user', text: `Tell me more about the cat, part ${turn}.` });
      const before = meter.usedInputTokens;
      const r = await engine.generate(messages, options({ deltas: [], callTool: recorder().callTool, maxTokens: 24 }));
      perTurn.push(meter.usedInputTokens - before);
      messages.push({ role: 'assistant', text: r.text });
    }
    t.diagnostic(`prompt tokens evaluated per turn: ${perTurn.join(' ')}`);
    assert.ok(Math.max(...perTurn.slice(2)) <= perTurn[1]! + 8, `per turn: ${perTurn.join(' ')}`);
  });

  test('tools given at load are described in the prompt then: the first answer with them evaluates only its own tokens', async (t) => {
    const firstAnswerTokens = async (o: LlmOptions) => {
      const e = await LlamaEngine.load(resolved, o);
      try {
        const meter = internals(e).sequence.tokenMeter;
        const before = meter.usedInputTokens;
        await e.generate(ask('What time is it?'), options({ deltas: [], callTool: recorder().callTool, maxTokens: 1 }));
        return meter.usedInputTokens - before;
      } finally {
        await e.dispose();
      }
    };
    const cold = await firstAnswerTokens(OPTS);
    const warm = await firstAnswerTokens({ ...OPTS, tools: TOOLS });
    t.diagnostic(`first answer with tools evaluated ${cold} prompt tokens, ${warm} after a warm-up with them`);
    assert.ok(warm < 50 && cold > warm + 500, `cold ${cold}, warm ${warm}`);
  });

  test('context overflow with tools offered: 12 turns in a 1024-token context never throw', async () => {
    const small = await LlamaEngine.load(resolved, OPTS);
    try {
      // As the pipeline keeps it, which knows nothing of the functions' description.
      const conversation = new Conversation(OPTS.systemPrompt);
      for (let i = 0; i < 12; i++) {
        conversation.trim(small.info.contextSize, (text) => small.countTokens(text));
        conversation.append(i, `Tell me story number ${i} about a cat and a dog.`);
        const deltas: string[] = [];
        const r = await small.generate(conversation.messages(), options({ deltas, callTool: recorder().callTool, maxTokens: 48, temperature: 0.8 }));
        assert.ok(r.text.length > 0, `turn ${i} produced nothing (${r.stopReason})`);
        conversation.settle(i, { type: 'whole', text: r.text });
      }
    } finally {
      await small.dispose();
    }
  });

  test('tool schemas become what the grammar takes: keywords it cannot take are dropped, never fatal', () => {
    assert.deepEqual(grammarSchema(SET_TIMER.parameters), {
      type: 'object',
      properties: { minutes: { type: 'integer' }, label: { oneOf: [{ type: 'string' }, { type: 'null' }] } },
    });
    assert.deepEqual(grammarSchema(READ_NOTES.parameters), { type: 'object', properties: {} });
    assert.deepEqual(grammarSchema({ type: 'object' }), { type: 'object', additionalProperties: true });
    assert.deepEqual(grammarSchema({ type: ['string', 'null'], maxLength: 5, description: 'd' }), { oneOf: [{ type: 'string', maxLength: 5 }, { type: 'null' }], description: 'd' });
    assert.deepEqual(grammarSchema({ type: 'array', items: { enum: ['a', 1, { x: 1 }] }, minItems: 1 }), { type: 'array', items: { enum: ['a', 1] }, minItems: 1 });
    assert.deepEqual(grammarSchema({ type: 'string', format: 'date' }), { type: 'string', format: 'date' });
    assert.deepEqual(grammarSchema({ type: 'string', format: 'uri' }), { type: 'string' });
    const any = grammarSchema({ $ref: '#/definitions/x' });
    assert.ok('oneOf' in any, JSON.stringify(any));
  });
});
