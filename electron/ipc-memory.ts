/**
 * The Memory panel's part of the IPC contract (ipc-contract.ts carries it): its commands and their
 * validation. The facts themselves reach the window in the snapshot and in pipeline `memory` events.
 */
import type { MemoryView } from './memory/memory-book';
import { onlyKeys, type Parsed } from './ipc-validate';

export type { MemoryView };

export type MemoryCommand =
  /** The panel's Delete: the fact with this id (an unknown one: nothing happens). */
  | { type: 'forget-fact'; id: string }
  /** The panel's Clear all (confirmed in the page): every fact; a file that could not be used is moved aside. */
  | { type: 'clear-memory' };

/** The longest fact id a command may carry (the book's own ids are short: "f12"). */
export const MAX_FACT_ID_LENGTH = 64;

/** The command when `v` is one of the panel's, its error when malformed; null when it is another command. */
export function parseMemoryCommand(v: Record<string, unknown>): Parsed<MemoryCommand> | null {
  switch (v.type) {
    case 'forget-fact': {
      const extra = onlyKeys(v, ['type', 'id'], 'forget-fact');
      if (extra) return { ok: false, error: extra };
      return typeof v.id === 'string' && v.id.length > 0 && v.id.length <= MAX_FACT_ID_LENGTH
        ? { ok: true, value: { type: 'forget-fact', id: v.id } }
        : { ok: false, error: `"id" must be a fact id (a string of 1 to ${MAX_FACT_ID_LENGTH} characters)` };
    }
    case 'clear-memory': {
      const extra = onlyKeys(v, ['type'], 'clear-memory');
      return extra ? { ok: false, error: extra } : { ok: true, value: { type: 'clear-memory' } };
    }
    default:
      return null;
  }
}
