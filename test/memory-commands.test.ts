import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { matchCommand } from '../electron/commands/match';
import { MemoryBook } from '../electron/memory/memory-book';
import type { HistoryQuery, HistorySearchResult } from '../electron/memory/history-search';
import { FastForwardClock } from '../electron/pipeline/clock';
import { EventHub, type PipelineEvent } from '../electron/pipeline/events';
import { Conversation } from '../electron/pipeline/respond/conversation';
import { answerLocally, type CommandHost } from '../electron/pipeline/skills/local-commands';
import { PipelineMemory } from '../electron/pipeline/skills/memory';
import { TimerBook } from '../electron/timers/timer-book';
import { DEFAULT_SETTINGS, mergeSettings, type Settings } from '../electron/settings/schema';

const NOW = new Date(2026, 11, 7, 15, 0).getTime();

function setup(opts: { settings?: Settings; book?: MemoryBook | null; search?: (q: HistoryQuery) => Promise<HistorySearchResult> } = {}) {
  const settings = opts.settings ?? DEFAULT_SETTINGS;
  const events = new EventHub();
  const seen: PipelineEvent[] = [];
  events.on((e) => seen.push(e));
  const saved: string[] = [];
  const memory = new PipelineMemory(
    { book: opts.book === undefined ? new MemoryBook() : opts.book, problem: opts.book === null ? 'memory.json is not valid JSON' : null, save: async (b) => void saved.push(b.toFileText()), clearFile: async () => ({ keptAs: '/x/memory.json.unreadable-1' }) },
    () => settings,
    new FastForwardClock(),
    events,
  );
  const conversation = new Conversation('Be brief.');
  let refreshed = 0;
  const host: CommandHost = {
    timers: new TimerBook(),
    memory,
    conversation,
    refreshPrompt: () => void refreshed++,
    searchHistory: opts.search ?? null,
    historyKeepsText: () => settings.history.logText,
    epochAt: (ms) => NOW + ms,
    lastAnswer: () => null,
    timersChanged: () => undefined,
    settlePause: () => undefined,
  };
  const ask = async (text: string) => {
    const a = answerLocally(text, 0, host);
    assert.ok(a, `"${text}" is a local command`);
    return { name: a.command.name, say: a.pending ? await a.pending : a.say };
  };
  return { ask, memory, conversation, saved, seen, refreshed: () => refreshed };
}

describe('memory commands', () => {
  it('remember, recall, forget one thing, forget everything: said back in the second person, kept, and in the conversation', async () => {
    const s = setup();
    assert.deepEqual(await s.ask('Remember that my sister is called Anna.'), { name: 'remember', say: "Okay, I'll remember that your sister is called Anna." });
    assert.deepEqual(await s.ask("remember i'm vegetarian"), { name: 'remember', say: "Okay, I'll remember that you're vegetarian." });
    assert.equal((await s.ask('remember that my sister is called anna')).say, 'I know: your sister is called anna.');
    assert.deepEqual(s.memory.facts().map((f) => f.text), ["i'm vegetarian", 'my sister is called anna']);
    await s.memory.settled();
    assert.equal(s.saved.length, 3);
    // The model learns a new fact from the exchange, not from a system prompt evaluated again.
    assert.equal(s.refreshed(), 0);
    assert.ok(s.conversation.messages().some((m) => m.role === 'assistant' && m.text.includes('your sister is called Anna')));
    assert.equal((await s.ask('what do you remember about me')).say, "You asked me to remember two things: you're vegetarian and your sister is called anna.");
    assert.equal((await s.ask('forget what I said about my brother')).say, "I don't remember anything about your brother.");
    assert.deepEqual(await s.ask('forget what i said about my sister'), { name: 'forget', say: 'Okay, I forgot that your sister is called anna.' });
    assert.deepEqual(s.memory.facts().map((f) => f.text), ["i'm vegetarian"]);
    // Forgotten from the conversation and the system prompt too.
    assert.equal(s.refreshed(), 1);
    assert.ok(!s.conversation.messages().some((m) => /sister/i.test(m.text)));
    assert.deepEqual(await s.ask('forget everything'), { name: 'forget', say: 'Okay, I forgot everything you asked me to remember.' });
    assert.equal(s.memory.facts().length, 0);
    assert.equal((await s.ask('forget everything')).say, 'There was nothing to forget.');
    assert.equal((await s.ask('what do you remember')).say, "You haven't asked me to remember anything yet.");
    assert.ok(s.seen.some((e) => e.type === 'memory' && e.memory.facts.length === 2));
  });

  it('refuses a secret, with a sentence, and keeps nothing', async () => {
    const s = setup();
    assert.match((await s.ask('remember that my password is hunter2')).say!, /looks like a password or a key, so I won't keep it/);
    assert.equal(s.memory.facts().length, 0);
  });

  it('switched off, or with a file it could not use, says so; "forget everything" starts a new memory and keeps the old file', async () => {
    const off = setup({ settings: mergeSettings(DEFAULT_SETTINGS, { memory: { enabled: false } }) });
    assert.match((await off.ask('remember that my sister is called anna')).say!, /My memory is switched off/);
    assert.equal(off.memory.facts().length, 0);
    const broken = setup({ book: null });
    assert.match((await broken.ask('remember that my sister is called anna')).say!, /its file could not be read/);
    assert.equal(broken.memory.view().problem, 'memory.json is not valid JSON');
    assert.equal((await broken.ask('forget everything')).say, 'Okay, I started a new memory. The old file could not be read; it was kept as /x/memory.json.unreadable-1.');
    assert.equal((await broken.ask('remember that my sister is called anna')).say, "Okay, I'll remember that your sister is called anna.");
  });

  it('searches the history for "what did I say about the trip", and "yesterday" as a day', async () => {
    const asked: HistoryQuery[] = [];
    const yesterday = new Date(2026, 11, 6, 18, 30).toISOString();
    const s = setup({
      search: async (q) => {
        asked.push(q);
        return { hits: [{ at: yesterday, session: 's', userText: 'we are planning a trip to Paris in May', assistantText: 'Lovely.', score: 2 }], turnsRead: 10, textlessTurns: 0, bytesRead: 100, truncated: false, tookMs: 1 };
      },
    });
    assert.deepEqual(await s.ask('what did i say about the trip'), { name: 'history.search', say: 'Yesterday you said: we are planning a trip to Paris in May.' });
    assert.equal(asked[0]!.words, 'the trip');
    await s.ask('what did we talk about yesterday');
    assert.equal(asked[1]!.words, '');
    assert.equal(asked[1]!.fromMs, new Date(2026, 11, 6).getTime());
    const none = setup();
    assert.equal((await none.ask('what did we talk about yesterday')).say, 'There is no history of earlier conversations to search.');
    const textOff = setup({ settings: mergeSettings(DEFAULT_SETTINGS, { history: { logText: false } }), search: async () => assert.fail('not searched') });
    assert.match((await textOff.ask('what did i say about the trip')).say!, /keeps no words, since text logging is off/);
  });

  it('leaves "forget everything we said" to the conversation reset, and questions to the model', () => {
    assert.equal(matchCommand('forget everything we said')?.name, 'conversation.reset');
    assert.equal(matchCommand('do you remember the trip'), null);
    assert.equal(matchCommand('what should i cook for my sister'), null);
  });
});
