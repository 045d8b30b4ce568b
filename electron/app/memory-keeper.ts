/**
 * The app's memory across model reloads: memory.json (beside settings.json) loaded once at start,
 * and the same book handed to every pipeline the controller builds, as TimerKeeper does for the
 * timers. The window's Delete and Clear all act on the running pipeline's memory, or, while none
 * runs (no models yet, a reload), on a stand-in over the same book, so the panel always lists and
 * changes the facts. No fact is ever put into a notice or a log line: only the file's problem is.
 */
import { messageOf } from '../errors';
import { MemoryBook, type MemoryView } from '../memory/memory-book';
import { MemoryStore } from '../memory/memory-store';
import type { Clock } from '../pipeline/clock';
import { EventHub, type PipelineEvent } from '../pipeline/events';
import { PipelineMemory, type MemoryOptions } from '../pipeline/skills/memory';
import type { Settings } from '../settings/schema';

/** What a running pipeline offers the keeper. */
export interface MemoryHolder {
  readonly memory: PipelineMemory;
  refreshSystemPrompt(): void;
}

export interface MemoryKeeperHooks {
  /** The running pipeline, or null while none runs. */
  running(): MemoryHolder | null;
  settings(): Settings;
  /** A memory event (or a failed save's notice) with no pipeline to send it: the window gets it the same way. */
  event(e: PipelineEvent): void;
  /** A problem for the user; `keep` shows it to a window that connects later too. */
  notice(message: string, keep: boolean): void;
  /** A kept notice no longer holds (the unusable file was cleared): a window that connects later is not shown it. */
  solved(message: string): void;
}

export class MemoryKeeper {
  private readonly store: MemoryStore;
  /** Null while the file could not be used (memory is off until it is cleared). */
  private book: MemoryBook | null = new MemoryBook();
  private problem: string | null = null;
  /** Acts on the book while no pipeline runs; built again when the book is replaced. */
  private idle: PipelineMemory | null = null;
  /** Writes called and not yet settled, awaited on shutdown. */
  private readonly writes = new Set<Promise<unknown>>();

  constructor(
    dataDir: string,
    private readonly historyDir: string,
    private readonly clock: Clock,
    private readonly hooks: MemoryKeeperHooks,
  ) {
    this.store = new MemoryStore(dataDir);
  }

  /** Once, before the first pipeline. A file that could not be used is named in one notice and left as it is. */
  async load(): Promise<void> {
    const { book, problem } = await this.store.load();
    this.book = book;
    this.problem = problem;
    this.idle = null;
    if (problem) this.hooks.notice(problem, true);
    // A window that connected meanwhile was sent the empty memory the keeper starts with.
    this.memory().emit();
  }

  /** What each new pipeline is built with: this same book, so what it learns outlives it. */
  options(): MemoryOptions {
    return {
      book: this.book,
      problem: this.problem,
      save: (book) => this.track(this.store.save(book)),
      clearFile: () => this.track(this.store.clear()),
      historyDir: this.historyDir,
      cleared: (book) => this.replaced(book),
    };
  }

  view(): MemoryView {
    return this.memory().view();
  }

  /** The panel's Delete; the system prompt loses the fact at once. */
  forget(id: string): void {
    if (this.memory().remove(id)) this.hooks.running()?.refreshSystemPrompt();
  }

  /** The panel's Clear all: every fact, or a file that could not be used moved aside and a new memory begun. */
  async clear(): Promise<void> {
    const memory = this.memory();
    try {
      const done = await memory.clear({ evenIfOff: true });
      if (done?.keptAs) this.hooks.notice(`The memory file that could not be used was kept as ${done.keptAs}; memory starts afresh.`, false);
    } catch (err) {
      this.hooks.notice(messageOf(err, 'Could not clear the memory'), false);
    }
    this.hooks.running()?.refreshSystemPrompt();
  }

  /** Settings changed: the prompt carries the facts only while memory is on, within its budget, after the system prompt. */
  settingsChanged(before: Settings, after: Settings): void {
    const memoryChanged = before.memory.enabled !== after.memory.enabled || before.memory.maxTokens !== after.memory.maxTokens;
    if (memoryChanged || before.llm.systemPrompt !== after.llm.systemPrompt) this.hooks.running()?.refreshSystemPrompt();
    if (memoryChanged) this.memory().emit();
  }

  /** Resolves when every change so far is on disk (or its write failed and was told); a pipeline that went waited for its own saves (the controller's unload). */
  async flush(): Promise<void> {
    // A memory's saves wait in its queue before they reach the store.
    await Promise.all([this.idle?.settled(), this.hooks.running()?.memory.settled()]);
    while (this.writes.size > 0) await Promise.allSettled([...this.writes]);
  }

  /** The running pipeline's memory, else the stand-in over the same book. */
  private memory(): PipelineMemory {
    const running = this.hooks.running();
    if (running) return running.memory;
    if (!this.idle) {
      const events = new EventHub<PipelineEvent>();
      events.on((e) => this.hooks.event(e));
      this.idle = new PipelineMemory(this.options(), () => this.hooks.settings(), this.clock, events);
    }
    return this.idle;
  }

  /** A file that could not be used was cleared (in a pipeline or the stand-in): the next pipeline gets the new book. */
  private replaced(book: MemoryBook): void {
    if (this.problem) this.hooks.solved(this.problem);
    this.book = book;
    this.problem = null;
    this.idle = null;
  }

  private track<T>(write: Promise<T>): Promise<T> {
    this.writes.add(write);
    const done = () => void this.writes.delete(write);
    write.then(done, done);
    return write;
  }
}
