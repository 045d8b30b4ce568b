/**
 * ListenAhead's scheduling, with a scripted stand-in for the language model (scheduling logic only:
 * what a real model keeps of a prefill is tested in llm.test.ts): one prefill at a time, the latest
 * words only, nothing after stop, failures swallowed, nothing where the model cannot prefill.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatMessage, LanguageModel } from '../electron/engines/llm-types';
import { Conversation } from '../electron/pipeline/respond/conversation';
import { ListenAhead } from '../electron/pipeline/respond/listen-ahead';

/** A scheduling stub: records each prefill's last message and resolves it when told. */
function scriptedModel(fail = false) {
  const fed: string[] = [];
  const pending: (() => void)[] = [];
  const llm: LanguageModel = {
    info: { contextSize: 4096 } as LanguageModel['info'],
    generate: () => Promise.reject(new Error('not asked here')),
    countTokens: (t) => t.split(' ').length,
    prefill: (messages: readonly ChatMessage[]) => {
      fed.push(messages.at(-1)!.text);
      return new Promise<void>((resolve, reject) => pending.push(() => (fail ? reject(new Error('boom')) : resolve())));
    },
    dispose: async () => {},
  };
  const settle = async () => {
    pending.shift()?.();
    await new Promise((r) => setImmediate(r));
  };
  return { llm, fed, settle, get waiting() {
    return pending.length;
  } };
}

describe('ListenAhead (scheduling)', () => {
  test('one prefill at a time; words heard meanwhile wait, and only the latest is fed', async () => {
    const m = scriptedModel();
    const ahead = new ListenAhead({ llm: m.llm, conversation: new Conversation('system'), tools: () => undefined });
    ahead.heard('what is');
    ahead.heard('what is the');
    ahead.heard('what is the weather');
    assert.deepEqual(m.fed, ['what is']);
    await m.settle();
    assert.deepEqual(m.fed, ['what is', 'what is the weather']);
    ahead.heard('what is the weather');
    await m.settle();
    assert.deepEqual(m.fed, ['what is', 'what is the weather'], 'the same words are not fed twice');
  });

  test('warming feeds the conversation as it stands with an empty message; words heard meanwhile replace it', async () => {
    const m = scriptedModel();
    const ahead = new ListenAhead({ llm: m.llm, conversation: new Conversation('system with facts'), tools: () => undefined });
    ahead.warm();
    assert.deepEqual(m.fed, ['']);
    ahead.warm();
    ahead.heard('what is');
    await m.settle();
    assert.deepEqual(m.fed, ['', 'what is'], 'the words, not a second warm-up');
    await m.settle();
    ahead.warm();
    await m.settle();
    assert.deepEqual(m.fed, ['', 'what is', ''], 'warmed again after a change');
  });

  test('the conversation so far comes first, the words last', async () => {
    const m = scriptedModel();
    const conversation = new Conversation('system');
    conversation.append(0, 'hello');
    conversation.settle(0, { type: 'whole', text: 'hi there' });
    let messages: readonly ChatMessage[] = [];
    const llm: LanguageModel = { ...m.llm, prefill: async (ms) => void (messages = ms) };
    new ListenAhead({ llm, conversation, tools: () => undefined }).heard('and now');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(messages.map((x) => [x.role, x.text]), [['system', 'system'], ['user', 'hello'], ['assistant', 'hi there'], ['user', 'and now']]);
  });

  test('tidy: a conversation past half the context is trimmed when its answer is settled and evaluated at once; one under it is left alone', async () => {
    const m = scriptedModel();
    const llm: LanguageModel = { ...m.llm, info: { contextSize: 512 } as LanguageModel['info'] };
    const conversation = new Conversation('system');
    const ahead = new ListenAhead({ llm, conversation, tools: () => undefined });
    const answer = Array.from({ length: 60 }, () => 'word').join(' ');
    for (let turn = 0; turn < 3; turn++) {
      conversation.append(turn, `question ${turn}`);
      conversation.settle(turn, { type: 'whole', text: answer });
      ahead.tidy();
    }
    assert.deepEqual(m.fed, [], '3 exchanges of about 70 tokens: under half of 512, nothing to do');
    assert.equal(conversation.messages().length, 7);
    conversation.append(3, 'question 3');
    conversation.settle(3, { type: 'whole', text: answer });
    ahead.tidy();
    // Past 256 tokens: cut to a quarter (the latest exchange kept), and the rest fed with an empty message for the next turn.
    assert.deepEqual(m.fed, ['']);
    assert.deepEqual(conversation.messages().map((x) => x.text.split(' ')[0]), ['system', 'question', 'word']);
    assert.match(conversation.messages()[1]!.text, /question 3$/);
    await m.settle();
    ahead.tidy();
    assert.deepEqual(m.fed, [''], 'nothing more to trim: not fed again');
  });

  test('an exchange not settled (a turn being dropped as the user goes on) is left out: the words follow the settled history', async () => {
    const m = scriptedModel();
    const conversation = new Conversation('system');
    conversation.append(0, 'hello');
    conversation.settle(0, { type: 'whole', text: 'hi there' });
    conversation.append(1, 'I want to tell you');
    let messages: readonly ChatMessage[] = [];
    const llm: LanguageModel = { ...m.llm, prefill: async (ms) => void (messages = ms) };
    new ListenAhead({ llm, conversation, tools: () => undefined }).heard('I want to tell you about my day');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(messages.map((x) => [x.role, x.text]), [['system', 'system'], ['user', 'hello'], ['assistant', 'hi there'], ['user', 'I want to tell you about my day']]);
  });

  test('after stop, the words waiting are not fed', async () => {
    const m = scriptedModel();
    const ahead = new ListenAhead({ llm: m.llm, conversation: new Conversation('system'), tools: () => undefined });
    ahead.heard('set a');
    ahead.heard('set a timer');
    ahead.stop();
    await m.settle();
    assert.deepEqual(m.fed, ['set a']);
  });

  test('a failed prefill is swallowed and the next words are still fed', async () => {
    const m = scriptedModel(true);
    const ahead = new ListenAhead({ llm: m.llm, conversation: new Conversation('system'), tools: () => undefined });
    ahead.heard('one');
    ahead.heard('one two');
    await m.settle();
    await m.settle();
    assert.deepEqual(m.fed, ['one', 'one two']);
  });

  test('a model that cannot prefill (a server) is never asked, and empty words are not fed', () => {
    const m = scriptedModel();
    const { prefill: _, ...server } = m.llm;
    const ahead = new ListenAhead({ llm: server, conversation: new Conversation('system'), tools: () => undefined });
    assert.equal(ahead.available, false);
    ahead.heard('hello');
    const local = new ListenAhead({ llm: m.llm, conversation: new Conversation('system'), tools: () => undefined });
    local.heard('   ');
    assert.deepEqual(m.fed, []);
  });
});
