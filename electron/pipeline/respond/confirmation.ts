/**
 * Asking before a tool changes something (issue 27): the model's call becomes a question the
 * assistant says ("I'm about to open example.com. Shall I go ahead?"), and only a yes in the user's
 * next turn runs it. "No", anything else, or silence past the window cancels it. One question is
 * open at a time; a new one replaces the old. Pure: times are given, nothing runs here.
 */
import type { ToolRequest } from '../../tools/toolbox';
import type { PendingConfirmation } from '../report';

export type { PendingConfirmation };

/** How long a question waits for the user's next turn before silence counts as no. */
export const CONFIRM_WINDOW_MS = 30_000;

export type ConfirmWords = 'yes' | 'no' | 'other';

const YES = /^(yes|yeah|yep|yup|sure|ok|okay|alright|all right|do it|go ahead|go for it|please do|confirm|confirmed|correct|affirmative)$/;
const NO = /^(no|nope|nah|don't|do not|don't do it|do not do it|cancel|cancel it|stop|never mind|nevermind|not now|no thanks|no thank you|forget it)$/;
const POLITE = /^(please|thanks|thank you|now|then)$/;

/**
 * What the user's reply to a question says: a yes ("yes", "do it", "go ahead", "yes please, do
 * it"), a no, or something else (a new request: the question is dropped and it is answered).
 */
export function confirmWords(text: string): ConfirmWords {
  const parts = text
    .toLowerCase()
    .replace(/[’`]/g, "'")
    .split(/[.,!?;:]+/)
    .map((p) => p.replace(/[^a-z' ]+/g, ' ').replace(/\s+/g, ' ').trim())
    .filter(Boolean);
  if (parts.length === 0) return 'other';
  const kinds = parts.map((p) => kindOf(p));
  if (kinds.every((k) => k === 'yes' || k === 'polite') && kinds.includes('yes')) return 'yes';
  if (kinds.every((k) => k === 'no' || k === 'polite') && kinds.includes('no')) return 'no';
  return 'other';
}

function kindOf(phrase: string): 'yes' | 'no' | 'polite' | 'other' {
  if (POLITE.test(phrase)) return 'polite';
  if (YES.test(phrase) || NO.test(phrase)) return YES.test(phrase) ? 'yes' : 'no';
  // "yes do it", "yes please", "ok go ahead": every word a yes or polite. A reply to a question is
  // short; a long one is a request of its own (and the split below must stay small).
  const words = phrase.split(' ');
  if (words.length > 6) return 'other';
  for (let n = words.length - 1; n > 0; n--) {
    const head = kindOf(words.slice(0, n).join(' '));
    const tail = kindOf(words.slice(n).join(' '));
    if (head !== 'other' && tail !== 'other') {
      const both = new Set([head, tail]);
      both.delete('polite');
      if (both.size === 0) return 'polite';
      if (both.size === 1) return [...both][0]!;
    }
  }
  return 'other';
}

/** The question the assistant says for `action`. */
export function questionFor(action: string): string {
  return `I'm about to ${action}. Shall I go ahead?`;
}

/** The open question, and what the user's answer to it does. */
export class ToolConfirmations {
  private open: { pending: PendingConfirmation; request: ToolRequest } | null = null;
  private asked = 0;

  get pending(): PendingConfirmation | null {
    return this.open?.pending ?? null;
  }

  /** The model asked for a tool that changes something: the question to say. */
  ask(request: ToolRequest, turn: number, atMs: number): { pending: PendingConfirmation; question: string } {
    const pending: PendingConfirmation = { id: `confirm-${++this.asked}`, turn, tool: request.call.name, server: request.server, action: request.action, askedAtMs: atMs };
    this.open = { pending, request };
    return { pending, question: questionFor(request.action) };
  }

  /**
   * The user's next turn after a question (`turn`, later than the asking one): run it (a yes), drop
   * it (a no, or anything else: then the words are a request of their own). Null: nothing was open.
   */
  answer(text: string, turn: number): { words: ConfirmWords; request: ToolRequest; pending: PendingConfirmation } | null {
    const open = this.open;
    if (!open || turn <= open.pending.turn) return null;
    this.open = null;
    return { words: confirmWords(text), request: open.request, pending: open.pending };
  }

  /** The window's Run or Cancel for question `id`: the request to run, or null (cancelled, or not open). */
  decide(id: string, run: boolean): ToolRequest | null {
    const open = this.open;
    if (!open || open.pending.id !== id) return null;
    this.open = null;
    return run ? open.request : null;
  }

  /** Silence: past the window with no turn begun, the question lapses. Returns the lapsed one. */
  expire(now: number, userTalking: boolean): PendingConfirmation | null {
    const open = this.open;
    if (!open || userTalking || now < open.pending.askedAtMs + CONFIRM_WINDOW_MS) return null;
    this.open = null;
    return open.pending;
  }

  /** When the open question lapses, or null. */
  get expiresAtMs(): number | null {
    return this.open ? this.open.pending.askedAtMs + CONFIRM_WINDOW_MS : null;
  }

  /** Forgets the question (the conversation was reset). */
  clear(): PendingConfirmation | null {
    const was = this.open?.pending ?? null;
    this.open = null;
    return was;
  }
}
