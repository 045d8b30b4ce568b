/**
 * The conversation after a reload: the window's entries are gone, but this app run's turns are in
 * the history's current session. Rebuilt from there (the words, what was heard of an interrupted
 * answer, acknowledgements, the report) and merged with whatever arrived live meanwhile. Pure, tested in Node.
 */
import type { LoggedTurn } from '../../electron/history/log-format';
import type { AssistantApi } from '../../electron/ipc-contract';
import type { ConversationEntry } from '../store';
import { TEXT_NOT_LOGGED } from './history';

/** As many as the store keeps. */
const MAX_ENTRIES = 200;

/**
 * The entries of the session's turns. Turn numbers start again when the pipeline is rebuilt (a model
 * reload): only the turns since the last restart are the current conversation, and numbers stay unique.
 */
export function entriesFromHistory(turns: readonly LoggedTurn[]): ConversationEntry[] {
  let start = 0;
  for (let i = 1; i < turns.length; i++) if (turns[i]!.report.index <= turns[i - 1]!.report.index) start = i;
  return turns.slice(start).slice(-MAX_ENTRIES).map((t) => {
    const r = t.report;
    return {
      turn: r.index,
      // Logged without its words (history.logText off): said so, as History does.
      user: t.texts ? r.userText : TEXT_NOT_LOGGED,
      userFinal: true,
      assistant: t.texts ? r.assistantText : '',
      heard: r.interrupted && t.texts ? r.heardText : null,
      // The log keeps that a holding phrase was spoken, not its words.
      holdingPhrase: null,
      backchannels: t.texts ? r.backchannels.map((b) => b.text).filter(Boolean) : [],
      report: r,
    };
  });
}

/** The restored entries under the live ones: a turn the window already has is kept as it is. */
export function mergeRestored(live: readonly ConversationEntry[], restored: readonly ConversationEntry[]): ConversationEntry[] {
  const have = new Set(live.map((e) => e.turn));
  return [...restored.filter((e) => !have.has(e.turn)), ...live].sort((a, b) => a.turn - b.turn).slice(-MAX_ENTRIES);
}

/**
 * Asks the history for this app run's session and returns its conversation; [] when there is none,
 * or the history cannot be read (the window then starts empty, as before).
 */
export async function loadCurrentConversation(a: Pick<AssistantApi, 'request'>): Promise<ConversationEntry[]> {
  const list = await a.request({ type: 'history-sessions' });
  const current = list.ok ? list.sessions.find((s) => s.current) : undefined;
  if (!current || current.turns === 0) return [];
  const r = await a.request({ type: 'history-session', id: current.id });
  return r.ok ? entriesFromHistory(r.session.turns) : [];
}

/**
 * Whether this page was reloaded (Ctrl+R, Electron reloading a crashed renderer): then the window
 * had a conversation and gets it back. A page opened anew (a new tab on dev:web's bridge, which
 * replaces the older one) starts empty, as a new window does.
 */
export function wasReloaded(perf: { getEntriesByType(type: string): readonly unknown[] } | undefined): boolean {
  const nav = perf?.getEntriesByType('navigation')[0] as { type?: string } | undefined;
  return nav?.type === 'reload';
}
