/**
 * The facts the user asked the assistant to keep ("remember that my sister is called Anna"), in
 * memory: pure, so the pipeline changes it at once and the app stores it after (memory-store.ts).
 * Bounded as the issue set it: a fact is at most 500 characters, the book at most 200 facts and
 * 16 kB of text, the oldest giving way (the caller tells the user which).
 */
import { tokenize as contentTerms } from './bm25';

export interface Fact {
  /** Stable while the app runs (the window's delete button names it); not stored. */
  id: string;
  text: string;
  /** When it was said (ISO time). */
  said: string;
}

/** What the window shows of the memory. */
export interface MemoryView {
  enabled: boolean;
  facts: Array<Pick<Fact, 'id' | 'text' | 'said'>>;
  /** Why memory is off although enabled (the file could not be used); null when it is usable. */
  problem: string | null;
}

export const MAX_FACT_CHARS = 500;
export const MAX_FACTS = 200;
export const MAX_FACTS_BYTES = 16 * 1024;
/** The file's format; a file with a higher one came from a newer app and is left alone. */
export const MEMORY_VERSION = 1;

/** Why a fact was not kept, for the sentence said back. */
export type Refusal = 'empty' | 'too-long' | 'secret';

export type RememberResult = { kept: Fact; dropped: Fact[]; again: boolean } | { refused: Refusal };

/**
 * Strings that look like a credential: keys of well-known services, a private key block, or a long
 * unbroken run of letters and digits, and "password/PIN is ...". The assistant's memory goes into
 * every prompt (also to a server), so such a thing is refused rather than kept.
 */
const SECRET_PATTERNS: readonly RegExp[] = [
  /\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}/,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/,
  /\bAKIA[0-9A-Z]{16}\b/,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/,
  /\bAIza[0-9A-Za-z_-]{30,}/,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
  /\b(?:password|passcode|passphrase|pin(?: code| number)?|api key|secret key|access token)\s+(?:is|was|:)\s*\S/i,
];

export function looksSecret(text: string): boolean {
  if (SECRET_PATTERNS.some((p) => p.test(text))) return true;
  // A token-like run: long, no spaces, letters and digits mixed (a key pasted into a sentence).
  return text.split(/\s+/).some((w) => w.length >= 24 && /[A-Za-z]/.test(w) && /\d/.test(w) && /^[A-Za-z0-9_\-+/=.]+$/.test(w));
}

const bytesOf = (facts: readonly Fact[]) => facts.reduce((n, f) => n + Buffer.byteLength(f.text) + 1, 0);

export class MemoryBook {
  private list: Fact[] = [];
  private nextId = 1;

  /** Oldest first. */
  get facts(): readonly Fact[] {
    return this.list;
  }

  private make(text: string, said: string): Fact {
    return { id: `f${this.nextId++}`, text, said };
  }

  /** Keeps a fact said at `said`; the same fact again only moves it to the end with the new date. */
  remember(raw: string, said: string): RememberResult {
    const text = raw.replace(/\s+/g, ' ').trim().replace(/[.!?,;:]+$/, '');
    if (!text) return { refused: 'empty' };
    if (text.length > MAX_FACT_CHARS) return { refused: 'too-long' };
    if (looksSecret(text)) return { refused: 'secret' };
    const same = this.list.findIndex((f) => f.text.toLowerCase() === text.toLowerCase());
    if (same >= 0) this.list.splice(same, 1);
    const kept = this.make(text, said);
    this.list.push(kept);
    const dropped: Fact[] = [];
    while (this.list.length > 1 && (this.list.length > MAX_FACTS || bytesOf(this.list) > MAX_FACTS_BYTES)) dropped.push(this.list.shift()!);
    return { kept, dropped, again: same >= 0 };
  }

  /**
   * Forgets the facts about `about` ("my sister"): those holding every content word of it (a word's
   * plural or other simple endings count as the word). Words with no content ("that") forget nothing.
   */
  forget(about: string): Fact[] {
    const terms = contentTerms(about);
    if (terms.length === 0) return [];
    const gone = this.list.filter((f) => matchesAll(f.text, terms));
    this.list = this.list.filter((f) => !gone.includes(f));
    return gone;
  }

  /** The window's delete button. */
  remove(id: string): Fact | null {
    const i = this.list.findIndex((f) => f.id === id);
    return i < 0 ? null : this.list.splice(i, 1)[0]!;
  }

  clear(): Fact[] {
    const gone = this.list;
    this.list = [];
    return gone;
  }

  toJSON(): { version: number; facts: Array<{ text: string; said: string }> } {
    return { version: MEMORY_VERSION, facts: this.list.map((f) => ({ text: f.text, said: f.said })) };
  }

  /** The file's text: one fact a line, so the user can read and edit it. */
  toFileText(): string {
    const lines = this.list.map((f) => `    ${JSON.stringify({ text: f.text, said: f.said })}`);
    return `{\n  "version": ${MEMORY_VERSION},\n  "facts": [${lines.length ? `\n${lines.join(',\n')}\n  ` : ''}]\n}\n`;
  }

  /** Throws with what is wrong (the store names it to the user); keeps the bounds as `remember` does. */
  static fromJSON(value: unknown): MemoryBook {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('it is not a JSON object');
    const v = value as { version?: unknown; facts?: unknown };
    if (typeof v.version !== 'number' || !Number.isInteger(v.version) || v.version < 1) throw new Error('"version" must be a whole number (1)');
    if (v.version > MEMORY_VERSION) throw new NewerVersionError(v.version);
    if (!Array.isArray(v.facts)) throw new Error('"facts" must be a list');
    if (v.facts.length > MAX_FACTS) throw new Error(`it has ${v.facts.length} facts, more than the ${MAX_FACTS} kept`);
    const book = new MemoryBook();
    v.facts.forEach((f: unknown, i) => {
      const fact = f as { text?: unknown; said?: unknown };
      if (typeof f !== 'object' || f === null || typeof fact.text !== 'string' || typeof fact.said !== 'string') throw new Error(`fact ${i + 1} must have a "text" and a "said" string`);
      if (fact.text.length > MAX_FACT_CHARS || !fact.text.trim()) throw new Error(`fact ${i + 1} is empty or longer than ${MAX_FACT_CHARS} characters`);
      if (Number.isNaN(Date.parse(fact.said))) throw new Error(`fact ${i + 1}'s "said" is not a date`);
      book.list.push(book.make(fact.text, fact.said));
    });
    return book;
  }
}

export class NewerVersionError extends Error {
  constructor(readonly version: number) {
    super(`it is from a newer version of the app (format ${version}; this one reads ${MEMORY_VERSION})`);
  }
}

/** Whether `text` holds every term (as content terms, so "sisters" holds "sister"). */
export function matchesAll(text: string, terms: readonly string[]): boolean {
  const have = new Set(contentTerms(text));
  return terms.every((t) => have.has(t));
}
