/**
 * The memory's local commands: "remember that ...", "forget what I said about ...", "forget
 * everything", "what do you remember about me", and "what did we talk about yesterday" (a search
 * of the session history). Answered without the language model; what changes the memory changes
 * the conversation too, so the model neither misses a new fact nor keeps a forgotten one.
 */
import type { CommandMatch } from '../../commands/match';
import { commandReply, type MemoryOutcome } from '../../commands/respond';
import { slotAsSaid } from '../../commands/slot-text';
import type { Fact } from '../../memory/memory-book';
import { tokenize as contentTerms } from '../../memory/bm25';
import { parseWhen } from '../../memory/memory-words';
import type { HistoryQuery, HistorySearchResult } from '../../memory/history-search';
import type { PipelineMemory } from './memory';
import type { MemoryToolHost } from '../../tools/memory-tools';

export interface MemoryCommandHost {
  readonly memory: PipelineMemory | null;
  /** The conversation the model is given: a kept fact is added as an exchange; a forgotten one leaves it. */
  readonly conversation: {
    appendDone(userText: string, answer: string, tools: readonly never[]): void;
    forgetExchanges(about: readonly string[]): void;
    reset(): void;
  };
  /** The facts in the system prompt changed: it is built again. */
  refreshPrompt(): void;
  /** Searches the session history (null: none is kept here). */
  searchHistory: ((q: HistoryQuery) => Promise<HistorySearchResult>) | null;
  /** Whether the history keeps the turns' words (history.logText). */
  historyKeepsText(): boolean;
}

/** What a memory command says: now, or (clearing, searching) once the work is done. */
export type MemoryAnswer = { say: string } | { pending: Promise<string> };

const texts = (facts: readonly Fact[]) => facts.map((f) => f.text);

export function runMemoryCommand(m: CommandMatch, userText: string, atEpochMs: number, host: MemoryCommandHost): MemoryAnswer {
  const reply = (memory: MemoryOutcome) => commandReply(m, { memory, now: new Date(atEpochMs) });
  // The slot in the user's own words: a fact is kept and said back as they said it ("May 3rd", "Anna").
  const slot = typeof m.slots['text'] === 'string' ? slotAsSaid(userText, m.slots['text']) : '';
  const memory = host.memory;
  if (!memory?.enabled) return { say: reply({ kind: 'off' }) };
  if (m.name === 'forget' && m.slots['all'] === true) return { pending: forgetAll(memory, host).then(reply) };
  if (m.name === 'history.search') return { pending: search(slot, atEpochMs, host).then(reply) };
  if (!memory.usable) return { say: reply({ kind: 'unusable' }) };
  switch (m.name) {
    case 'remember': {
      const r = memory.remember(slot, atEpochMs)!;
      if ('refused' in r) return { say: reply({ kind: 'refused', why: r.refused }) };
      const said = reply({ kind: 'remembered', fact: r.kept.text, again: r.again, dropped: texts(r.dropped) });
      // The model learns it from this exchange, at the end of its context, not by evaluating the system prompt again.
      host.conversation.appendDone(userText, said, []);
      if (r.dropped.length) host.refreshPrompt();
      return { say: said };
    }
    case 'forget': {
      const about = slot;
      const gone = memory.forget(about)!;
      if (gone.length) {
        host.conversation.forgetExchanges(contentTerms(about));
        host.refreshPrompt();
      }
      return { say: reply({ kind: 'forgot', facts: texts(gone), about }) };
    }
    case 'recall':
      return { say: reply({ kind: 'recalled', facts: texts(memory.facts()) }) };
    default:
      return { say: '' };
  }
}

async function forgetAll(memory: PipelineMemory, host: MemoryCommandHost): Promise<MemoryOutcome> {
  const r = await memory.clear();
  if (!r) return { kind: 'off' };
  // Everything: what was said in this conversation too.
  host.conversation.reset();
  host.refreshPrompt();
  return r.keptAs ? { kind: 'cleared', keptAs: r.keptAs } : { kind: 'forgot', facts: texts(r.facts), about: null };
}

async function search(words: string, atEpochMs: number, host: MemoryCommandHost): Promise<MemoryOutcome> {
  if (!host.memory?.enabled) return { kind: 'off' };
  if (!host.searchHistory) return { kind: 'no-history' };
  if (!host.historyKeepsText()) return { kind: 'history-off' };
  const when = parseWhen(words, new Date(atEpochMs));
  const about = when ? when.rest : words;
  try {
    const r = await host.searchHistory({ words: about, ...(when ? { fromMs: when.fromMs, toMs: when.toMs } : {}) });
    // Every turn found was logged without its words: nothing could be searched.
    if (r.turnsRead > 0 && r.textlessTurns === r.turnsRead) return { kind: 'history-off' };
    return { kind: 'history', about, when: when?.label ?? null, hits: r.hits.map((h) => ({ atMs: Date.parse(h.at), user: h.userText })) };
  } catch (e) {
    return { kind: 'history-failed', why: (e as Error).message };
  }
}

/** The memory tools' work in this pipeline, worded for the model (tools/memory-tools.ts). */
export function memoryToolHost(host: MemoryCommandHost, nowEpochMs: () => number): MemoryToolHost {
  const unavailable = (memory: PipelineMemory | null) => (!memory?.enabled ? 'error: the user has switched memory off' : !memory.usable ? 'error: the memory file could not be read; the user can clear it in the Memory panel' : null);
  return {
    remember(fact) {
      const memory = host.memory;
      const no = unavailable(memory);
      if (no) return no;
      const r = memory!.remember(fact, nowEpochMs())!;
      if ('refused' in r) return `not kept: ${r.refused === 'secret' ? 'it looks like a password or a key, which is never kept' : r.refused === 'too-long' ? 'it is too long (at most 500 characters)' : 'it is empty'}`;
      return `kept: "${r.kept.text}"${r.dropped.length ? `; to make room the oldest fact was forgotten: "${r.dropped[0]!.text}"` : ''}`;
    },
    forget(about) {
      const memory = host.memory;
      const no = unavailable(memory);
      if (no) return no;
      const gone = memory!.forget(about)!;
      if (gone.length === 0) return `no remembered fact is about "${about}"`;
      host.conversation.forgetExchanges(contentTerms(about));
      host.refreshPrompt();
      return `forgot ${gone.length}: ${gone.map((f) => `"${f.text}"`).join(', ')}`;
    },
    async searchHistory(query) {
      const r = await search(query, nowEpochMs(), host);
      switch (r.kind) {
        case 'history':
          return r.hits.length === 0 ? 'nothing matched' : r.hits.map((h) => `${localStamp(h.atMs)} the user said: "${h.user}"`).join('\n');
        case 'no-history':
          return 'no history of earlier conversations is kept';
        case 'history-off':
          return 'the history keeps no words (the user turned text logging off): nothing to search';
        case 'history-failed':
          return `error: ${r.why}`;
        default:
          return 'error: the memory is switched off';
      }
    },
  };
}

const two = (n: number) => String(n).padStart(2, '0');
/** "2026-12-06 18:30", local time. */
function localStamp(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}
