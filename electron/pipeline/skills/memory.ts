/**
 * The memory a pipeline keeps: the facts (memory/memory-book.ts) as loaded by the app or `talk`,
 * changed at once by the user's words or the window, stored after (the caller's `save`), and shown
 * in the window through `memory` events. What goes into the system prompt comes from here too.
 */
import { MemoryBook, type Fact, type MemoryView, type RememberResult } from '../../memory/memory-book';

export type { MemoryView };
import { memorySection, type MemorySection } from '../../memory/memory-prompt';
import type { Settings } from '../../settings/schema';
import type { Clock } from '../clock';
import type { EventHub } from '../events';

export interface MemoryOptions {
  /** The facts as loaded; null when the file could not be used (`problem` says why): memory is off until cleared. */
  book: MemoryBook | null;
  problem?: string | null;
  /** Stores the book (the app: memory.json); a failure is told as a notice. */
  save?: (book: MemoryBook) => Promise<void>;
  /** Empties the file, moving one that could not be used aside (its new name returned). */
  clearFile?: () => Promise<{ keptAs: string | null }>;
  /** The folder of the session history that search_history reads (null: none is kept). */
  historyDir?: string | null;
  /** A file that could not be used was cleared and `book` begun in its place (the app hands it to the next pipeline). */
  cleared?: (book: MemoryBook) => void;
}


export class PipelineMemory {
  private book: MemoryBook | null;
  private problem: string | null;
  /** Saves in flight, in order: `settled()` waits for them (talk, before it exits). */
  private saving: Promise<void> = Promise.resolve();

  constructor(
    private readonly options: MemoryOptions,
    private readonly settings: () => Settings,
    private readonly clock: Clock,
    private readonly events: EventHub,
  ) {
    this.book = options.book;
    this.problem = options.book ? null : (options.problem ?? 'memory.json could not be used');
  }

  get enabled(): boolean {
    return this.settings().memory.enabled;
  }

  /** Memory on, and the file usable. */
  get usable(): boolean {
    return this.enabled && this.book !== null;
  }

  get historyDir(): string | null {
    return this.options.historyDir ?? null;
  }

  /** Oldest first; none when memory is off or unusable. */
  facts(): readonly Fact[] {
    return this.usable ? this.book!.facts : [];
  }

  /** What the system prompt carries, counted with the model's tokenizer. */
  section(countTokens: (text: string) => number): MemorySection {
    return memorySection(this.facts(), this.settings().memory.maxTokens, countTokens);
  }

  view(): MemoryView {
    return { enabled: this.enabled, facts: (this.book?.facts ?? []).map((f) => ({ id: f.id, text: f.text, said: f.said })), problem: this.book ? null : this.problem };
  }

  /** Null when memory is off or unusable. */
  remember(text: string, saidAtMs: number): RememberResult | null {
    if (!this.usable) return null;
    const r = this.book!.remember(text, new Date(saidAtMs).toISOString());
    if (!('refused' in r)) this.changed();
    return r;
  }

  forget(about: string): Fact[] | null {
    if (!this.usable) return null;
    const gone = this.book!.forget(about);
    if (gone.length) this.changed();
    return gone;
  }

  /** The window's delete button. */
  remove(id: string): boolean {
    const gone = this.book?.remove(id) ?? null;
    if (gone) this.changed();
    return gone !== null;
  }

  /**
   * Forgets everything: with a usable file, empties it; with one that could not be used, moves it
   * aside and begins a new memory (`keptAs`). Null when memory is switched off (unless `evenIfOff`).
   */
  async clear(opts: { evenIfOff?: boolean } = {}): Promise<{ facts: Fact[]; keptAs: string | null } | null> {
    // Said, it is refused while memory is off (the user is told so); the window's Clear all is explicit and always runs.
    if (!this.enabled && !opts.evenIfOff) return null;
    if (this.book) {
      const facts = this.book.clear();
      this.changed();
      await this.settled();
      return { facts, keptAs: null };
    }
    const { keptAs } = (await this.options.clearFile?.()) ?? { keptAs: null };
    this.book = new MemoryBook();
    this.problem = null;
    this.options.cleared?.(this.book);
    this.emit();
    return { facts: [], keptAs };
  }

  /** Every save called so far has finished (or failed, and was told). */
  settled(): Promise<void> {
    return this.saving;
  }

  /** The settings changed (memory switched on or off): the window shows it. */
  emit(): void {
    this.events.emit({ type: 'memory', t: this.clock.now(), memory: this.view() });
  }

  private changed(): void {
    const book = this.book;
    const save = this.options.save;
    if (book && save) {
      this.saving = this.saving.then(() =>
        save(book).catch((e: unknown) => this.events.emit({ type: 'notice', t: this.clock.now(), message: `Could not save what you asked me to remember: ${(e as Error).message}` })),
      );
    }
    this.emit();
  }
}
