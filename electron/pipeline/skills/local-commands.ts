import { matchCommand, type CommandMatch } from '../../commands/match';
import { commandReply, type TimerFact } from '../../commands/respond';
import { MAX_ACTIVE, MAX_TIMER_MS, nextOccurrence, type Timer, type TimerBook } from '../../timers/timer-book';
import { runMemoryCommand, type MemoryCommandHost } from './memory-commands';

/** What local commands act on: the timers, the memory, the conversation, the answer being held, the clock. */
export interface CommandHost extends MemoryCommandHost {
  readonly timers: TimerBook;
  /** Epoch ms at pipeline time `ms` (timers and the time of day run on the pipeline clock). */
  epochAt(ms: number): number;
  /** The assistant's last spoken answer, for "repeat that". */
  lastAnswer(): string | null;
  /** The timers changed (the app stores them). */
  timersChanged(): void;
  /** The user's turn after they said "pause": resume the held answer, or cancel it. */
  settlePause(resume: boolean): void;
}

const fact = (book: TimerBook, t: Timer, nowMs: number): TimerFact => ({ name: t.name, remainingMs: book.remaining(t, nowMs) });
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);
// The book refuses these (it never holds more than it can keep, nor a time it cannot say): said instead.
const FULL = { refused: { why: 'full', limit: MAX_ACTIVE } } as const;
const TOO_LONG = { refused: { why: 'tooLong', maxDays: MAX_TIMER_MS / 86_400_000 } } as const;

/**
 * Runs a command that matched the user's words and gives what to say: the timers and alarms it set
 * or cancelled, the time, the last answer again. The language model is not asked. Timers run from
 * the end of the turn that set them (`endOfTurnMs`, pipeline clock).
 */
export function runCommand(m: CommandMatch, endOfTurnMs: number, host: CommandHost): string | null {
  const book = host.timers;
  const at = host.epochAt(endOfTurnMs);
  const name = str(m.slots['name']);
  const changed = <T>(x: T): T => {
    host.timersChanged();
    return x;
  };
  switch (m.name) {
    case 'timer.start': {
      const ms = num(m.slots['durationMs']);
      if (ms === null || ms <= 0) return null;
      if (ms > MAX_TIMER_MS) return commandReply(m, TOO_LONG);
      if (book.full(at)) return commandReply(m, FULL);
      changed(book.startTimer(ms, name, at));
      return commandReply(m);
    }
    case 'timer.cancel': {
      // "stop the timer" while it rings silences it.
      if (name === null && book.stop(at).length > 0) return changed(null);
      const cancelled = changed(book.cancel(at, { name, all: m.slots['all'] === true, kind: 'timer' }));
      return commandReply(m, { timers: cancelled.map((t) => fact(book, t, at)) });
    }
    case 'timer.status': {
      const running = book.active(at).filter((t) => t.kind === 'timer' && (name === null || t.name?.toLowerCase() === name.toLowerCase()));
      return commandReply(m, { timers: running.map((t) => fact(book, t, at)) });
    }
    case 'timer.add': {
      const ms = num(m.slots['durationMs']);
      if (ms !== null && ms > MAX_TIMER_MS) return commandReply(m, TOO_LONG);
      const t = ms === null ? null : changed(book.addTime(ms, at, name));
      return commandReply(m, { timers: t ? [fact(book, t, at)] : [] });
    }
    case 'alarm.set': {
      const hour = num(m.slots['hour']);
      const minute = num(m.slots['minute']) ?? 0;
      if (hour === null) return null;
      if (book.full(at)) return commandReply(m, FULL);
      const ampm = m.slots['ampm'] === 'am' || m.slots['ampm'] === 'pm' ? m.slots['ampm'] : null;
      const due = nextOccurrence(hour, minute, ampm, new Date(at));
      changed(book.setAlarm(due, at));
      const d = new Date(due);
      return commandReply(m, { alarms: [{ hour: d.getHours(), minute: d.getMinutes(), ampm: d.getHours() < 12 ? 'am' : 'pm' }] });
    }
    case 'alarm.cancel': {
      if (book.stop(at).length > 0) return changed(null);
      const cancelled = changed(book.cancel(at, { all: true, kind: 'alarm' }));
      return commandReply(m, { alarms: cancelled.map((t) => ({ hour: new Date(t.dueAtMs).getHours(), minute: new Date(t.dueAtMs).getMinutes(), ampm: new Date(t.dueAtMs).getHours() < 12 ? 'am' : 'pm' })) });
    }
    case 'time.now':
    case 'date.today':
      return commandReply(m, { now: new Date(at) });
    case 'repeat':
      return commandReply(m, { lastReply: host.lastAnswer() });
    case 'conversation.reset':
      host.conversation.reset();
      return commandReply(m);
    case 'stop':
      // The answer was stopped by the word itself; what rings stops too.
      if (book.stop(at).length > 0) host.timersChanged();
      return null;
    case 'pause':
      return null;
    case 'resume':
      host.settlePause(true);
      return null;
    case 'remember':
    case 'forget':
    case 'recall':
    case 'history.search':
      // They need the user's words and may take a while: answerLocally runs them (memory-commands.ts).
      return null;
  }
}

const MEMORY_COMMANDS = new Set<string>(['remember', 'forget', 'recall', 'history.search']);

/** A command the user's words matched, and what to say for it (null: nothing). */
export interface LocalAnswer {
  command: { name: string; slots: CommandMatch['slots'] };
  say: string | null;
  /** What to say once work done after the turn finishes (clearing the memory, searching the history). */
  pending?: Promise<string>;
}

/** The user's words as a local command (run, with what to say), or null when they are for the language model. */
export function answerLocally(text: string, endOfTurnMs: number, host: CommandHost): LocalAnswer | null {
  const m = matchCommand(text);
  // After a "pause", any turn but "resume" cancels the held answer ("resume" plays it on: runCommand).
  if (m?.name !== 'resume') host.settlePause(false);
  if (!m) return null;
  if (MEMORY_COMMANDS.has(m.name)) {
    const a = runMemoryCommand(m, text, host.epochAt(endOfTurnMs), host);
    return { command: { name: m.name, slots: m.slots }, ...('pending' in a ? { say: null, pending: a.pending } : { say: a.say || null }) };
  }
  const say = runCommand(m, endOfTurnMs, host);
  return { command: { name: m.name, slots: m.slots }, say: say ? say : null };
}
