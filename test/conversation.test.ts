/**
 * The conversation history (pure): exchanges keyed by turn, settled with what the user heard,
 * trimmed by tokens, versioned. Token counts here are words, so the sizes are easy to follow.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Conversation } from '../electron/pipeline/respond/conversation';

const words = (text: string) => (text ? text.split(' ').length : 0);
const said = (c: Conversation) => c.messages().map((m) => `${m.role}:${m.text}`);

describe('Conversation', () => {
  it('gives the system prompt, then each exchange; a turn not settled yet ends with the user', () => {
    const c = new Conversation('Be brief.');
    assert.deepEqual(said(c), ['system:Be brief.']);
    c.append(0, 'hello');
    assert.deepEqual(said(c), ['system:Be brief.', 'user:hello']);
    c.settle(0, { type: 'whole', text: ' Hi there.' });
    c.append(1, 'what time is it');
    assert.deepEqual(said(c), ['system:Be brief.', 'user:hello', 'assistant: Hi there.', 'user:what time is it']);
  });

  it('keeps the heard part of an interrupted answer, marked "…"; settling again replaces it', () => {
    const c = new Conversation('S');
    c.append(0, 'tell me a story');
    c.settle(0, { type: 'whole', text: 'Once upon a time there was a cat.' });
    // The answer had been written in full, then the user cut it off while it played.
    c.settle(0, { type: 'interrupted', heard: 'Once upon a time' });
    assert.deepEqual(said(c), ['system:S', 'user:tell me a story', 'assistant:Once upon a time…']);
  });

  it('drops an exchange whose answer was never heard', () => {
    const c = new Conversation('S');
    c.append(0, 'hello');
    c.settle(0, { type: 'whole', text: 'Hi.' });
    c.append(1, 'set a timer for');
    c.settle(1, { type: 'dropped' });
    assert.deepEqual(said(c), ['system:S', 'user:hello', 'assistant:Hi.']);
  });

  it('edits the turn it names, not the last exchange: settling turn 3 after turn 4 was appended', () => {
    const c = new Conversation('S');
    c.append(3, 'first question');
    c.append(4, 'second question');
    c.settle(3, { type: 'interrupted', heard: 'A part' });
    assert.deepEqual(said(c), ['system:S', 'user:first question', 'assistant:A part…', 'user:second question']);
    c.settle(4, { type: 'whole', text: 'Second answer.' });
    c.settle(3, { type: 'dropped' });
    assert.deepEqual(said(c), ['system:S', 'user:second question', 'assistant:Second answer.']);
  });

  it('ignores a turn it does not hold (trimmed or reset since)', () => {
    const c = new Conversation('S');
    c.append(0, 'hello');
    c.reset();
    const v = c.version;
    c.settle(0, { type: 'whole', text: 'Hi.' });
    assert.deepEqual(said(c), ['system:S']);
    assert.equal(c.version, v);
  });

  it('changes its version on every edit, and only then', () => {
    const c = new Conversation('S');
    const versions = [c.version];
    const step = (edit: () => void) => {
      edit();
      versions.push(c.version);
    };
    step(() => c.append(0, 'hello'));
    step(() => c.settle(0, { type: 'whole', text: 'Hi.' }));
    step(() => c.settle(0, { type: 'interrupted', heard: 'H' }));
    step(() => c.setSystemPrompt('T'));
    step(() => c.append(1, 'again'));
    step(() => c.settle(1, { type: 'dropped' }));
    step(() => c.reset());
    assert.equal(new Set(versions).size, versions.length, `versions ${versions.join(',')}`);
    const v = c.version;
    c.setSystemPrompt('T');
    c.trim(1000, words);
    void c.messages();
    assert.equal(c.version, v, 'no edit: same system prompt, nothing to trim, reading');
  });

  it('keeps the history while it fits in half the context', () => {
    const c = new Conversation('one two');
    // Each message counts its words plus 8 tokens of framing: 10 + 9 + 9 = 28 of 56.
    c.append(0, 'a');
    c.settle(0, { type: 'whole', text: 'b' });
    const v = c.version;
    c.trim(56, words);
    assert.equal(c.messages().length, 3);
    assert.equal(c.version, v);
  });

  it('past half the context, drops the oldest whole exchanges until it fits in a quarter; the system prompt stays', () => {
    const c = new Conversation('one two');
    for (let turn = 0; turn < 5; turn++) {
      c.append(turn, `q${turn}`);
      c.settle(turn, { type: 'whole', text: `a${turn}` });
    }
    // 10 (system) + 5 exchanges of 18 = 100 > 160 / 2: down to at most 40, that is one exchange left.
    const v = c.version;
    c.trim(160, words);
    assert.deepEqual(said(c), ['system:one two', 'user:q4', 'assistant:a4']);
    assert.notEqual(c.version, v);
  });

  it('trims an exchange not settled yet as its user message alone', () => {
    const c = new Conversation('one two');
    c.append(0, 'q0');
    c.settle(0, { type: 'whole', text: 'a0' });
    c.append(1, 'q1');
    // 10 + 18 + 9 = 37 > 64 / 2; without the first exchange 19, still over 64 / 4: the second goes too.
    c.trim(64, words);
    assert.deepEqual(said(c), ['system:one two']);
    c.append(2, 'q2');
    c.trim(80, words);
    assert.deepEqual(said(c), ['system:one two', 'user:q2']);
  });

  it('reset forgets every exchange and keeps the system prompt; a new prompt leads the history', () => {
    const c = new Conversation('S');
    c.append(0, 'hello');
    c.settle(0, { type: 'whole', text: 'Hi.' });
    c.setSystemPrompt('T');
    assert.equal(c.systemPrompt, 'T');
    assert.deepEqual(said(c), ['system:T', 'user:hello', 'assistant:Hi.']);
    c.reset();
    assert.deepEqual(said(c), ['system:T']);
  });

  it('gives the line about the present with the user\'s words when it changed, never in the system prompt (which stays as evaluated)', () => {
    const c = new Conversation('Be brief.');
    const v = c.version;
    const at342 = 'It is now Tuesday, December 1, 2026, 3:42 PM.';
    c.setNow(at342);
    assert.equal(c.version, v + 1);
    c.setNow(at342);
    assert.equal(c.version, v + 1, 'the same line again is no edit');
    assert.deepEqual(c.userMessage('hi'), { role: 'user', text: `[${at342}]\nhi` }, 'a draft is given what the turn will be');
    c.append(1, 'hi');
    c.settle(1, { type: 'whole', text: 'Hello.' });
    c.append(2, 'and now?');
    c.settle(2, { type: 'whole', text: 'Still.' });
    c.setNow('It is now Tuesday, December 1, 2026, 3:43 PM.');
    c.append(3, 'later');
    assert.deepEqual(said(c), ['system:Be brief.', `user:[${at342}]\nhi`, 'assistant:Hello.', 'user:and now?', 'assistant:Still.', 'user:[It is now Tuesday, December 1, 2026, 3:43 PM.]\nlater']);
    assert.equal(c.systemPrompt, 'Be brief.');
    // Trimmed past the exchange that carried it, the first one kept carries the latest line.
    c.settle(3, { type: 'whole', text: 'Yes.' });
    c.setNow(at342);
    const d = new Conversation('S');
    d.setNow(at342);
    for (let i = 0; i < 30; i++) (d.append(i, `question number ${i}`), d.settle(i, { type: 'whole', text: `answer ${i}` }));
    d.trim(200, (t) => t.split(' ').length);
    assert.match(d.messages()[1]!.text, /^\[It is now Tuesday, December 1, 2026, 3:42 PM\.\]\nquestion number \d+$/);
  });

  it('words fed while a turn being answered may still be dropped carry the line as the prompt after the drop will', () => {
    const c = new Conversation('Be brief.');
    const at342 = 'It is now Tuesday, December 1, 2026, 3:42 PM.';
    c.setNow(at342);
    c.append(1, 'I want to tell you');
    // The user went on: the turn continuing it is fed over the settled history only (ListenAhead).
    const fed = [...c.messages(true), c.userMessage('I want to tell you about my day')];
    c.settle(1, { type: 'dropped' });
    c.append(2, 'I want to tell you about my day');
    assert.deepEqual(fed, c.messages(), 'the fed prompt is the answer\'s prompt');
    assert.equal(c.messages()[1]!.text, `[${at342}]\nI want to tell you about my day`);
  });
});
