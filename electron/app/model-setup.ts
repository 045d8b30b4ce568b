/**
 * First run (or a model deleted since): the plan of what to download, shown in the window instead of
 * an error; then each model downloaded, verified and run once before it counts as installed, an
 * unusable one replaced by another of its kind, and an optional one skipped rather than blocking.
 */
import { rm } from 'node:fs/promises';
import { isUserError, messageOf, UserError } from '../errors';
import type { AppEvent, AppStatus, ModelCheckStatus, ModelKind, SetupStatus } from '../ipc-contract';
import { fetchModel, type FetchFunction } from '../../native-models/downloader';
import type { Hardware } from '../../native-models/recommend';
import { resolveModel } from '../../native-models/resolver';
import { alternativeFor, isReplaceableDownloadError, plannedModel, planSetup, totalBytes, WITHOUT_OPTIONAL } from '../../native-models/setup-plan';
import { isOptionalKind, type ModelEntry } from '../../native-models/types';
import { checkModel, failureLine, KIND_NOUN } from '../model-check/check';

/** What setup needs of the controller: its status, the window, and a reload once the models are in. */
export interface SetupHost {
  setup(): SetupStatus | null;
  setStatus(patch: Partial<AppStatus>): void;
  notice(level: 'info' | 'error', message: string, keep?: boolean): void;
  emit(e: AppEvent): void;
  reload(): Promise<void>;
}

export interface SetupOptions {
  catalog: readonly ModelEntry[];
  /** Where downloads go (the user's models folder). */
  downloadRoot: string;
  fetch?: FetchFunction;
  detectHardware?: () => Promise<Hardware>;
}

export class ModelSetup {
  private running: AbortController | null = null;

  constructor(
    private readonly host: SetupHost,
    private readonly opts: SetupOptions,
  ) {}

  /** Stops a download in progress (the window's Cancel, or quitting). */
  cancel(): void {
    this.running?.abort();
  }

  /**
   * First run (or a model deleted since): when a kind has no model installed, the window shows what
   * will be downloaded instead of an error. True when setup is needed.
   */
  async offer(roots: string[], notNeeded: readonly ModelKind[]): Promise<boolean> {
    const detect = this.opts.detectHardware ?? (async () => (await import('../engines/hardware')).detectHardware());
    let plan;
    try {
      plan = await planSetup(this.opts.catalog, roots, detect, { notNeeded });
    } catch (err) {
      this.host.setStatus({ phase: 'error', error: messageOf(err, 'Could not work out which models to download') });
      return true;
    }
    if (!plan) return false;
    this.host.setStatus({ phase: 'setup', setup: { ...plan, folder: this.opts.downloadRoot, state: 'waiting', error: null, checks: {} } });
    return true;
  }

  private patchSetup(patch: Partial<SetupStatus>): void {
    const setup = this.host.setup();
    if (setup) this.host.setStatus({ setup: { ...setup, ...patch } });
  }

  private setCheck(id: string, state: ModelCheckStatus['state'], detail: string | null): void {
    const setup = this.host.setup();
    if (setup) this.patchSetup({ checks: { ...setup.checks, [id]: { state, detail } } });
  }

  /**
   * Downloads the setup plan's models, proves each one loads and runs, then starts the assistant.
   * A model that cannot be used is replaced by another of its kind when the catalog has one; the
   * assistant never starts with a model that failed its check.
   */
  async download(): Promise<void> {
    if (!this.host.setup() || this.running) return;
    const abort = new AbortController();
    this.running = abort;
    this.patchSetup({ state: 'downloading', error: null });
    const skipped: string[] = [];
    try {
      for (let i = 0; i < (this.host.setup()?.models.length ?? 0); i++) {
        if (!this.host.setup()!.models[i]!.optional) await this.install(i, abort.signal);
        else if (!(await this.installOptional(i, abort.signal))) skipped.push(this.host.setup()!.models[i]!.name);
      }
    } catch (err) {
      const cancelled = abort.signal.aborted;
      this.patchSetup({ state: cancelled ? 'cancelled' : 'failed', error: cancelled ? null : messageOf(err, 'The download failed') });
      return;
    } finally {
      this.running = null;
    }
    this.host.notice('info', `The models are downloaded, verified, and each one ran once${skipped.length ? ` (${skipped.join(', ')} skipped)` : ''}.`);
    await this.host.reload();
  }

  /**
   * An optional model whose download or check fails is skipped, with a notice: the assistant starts
   * without it rather than not at all. False when skipped. A cancel still cancels.
   */
  private async installOptional(index: number, signal: AbortSignal): Promise<boolean> {
    try {
      await this.install(index, signal);
      return true;
    } catch (err) {
      if (signal.aborted) throw err;
      const planned = this.host.setup()!.models[index]!;
      const line = `${messageOf(err, `Could not download ${planned.name}`)} The assistant starts without it: ${WITHOUT_OPTIONAL[planned.kind] ?? 'it is optional'}.`;
      this.setCheck(planned.id, 'skipped', line);
      this.host.notice('error', line, true);
      return false;
    }
  }

  /** Downloads and checks the plan's model at `index`, switching to an alternative when it cannot be used. */
  private async install(index: number, signal: AbortSignal): Promise<void> {
    const tried = new Set<string>();
    for (;;) {
      const planned = this.host.setup()!.models[index]!;
      const entry = this.opts.catalog.find((e) => e.id === planned.id);
      if (!entry) throw new Error(`${planned.id} is not in the catalog`);
      tried.add(entry.id);
      const failure = await this.fetchAndCheck(entry, signal);
      if (failure === null) return;
      if (signal.aborted) throw new UserError('The download was cancelled.', 'download-cancelled');
      const alternative = alternativeFor(this.opts.catalog, entry.kind, tried);
      if (!alternative) {
        const none = isOptionalKind(entry.kind) ? '' : ` No other ${KIND_NOUN[entry.kind]} is in the catalog: please report this.`;
        throw new UserError(failure + none, 'model-unusable');
      }
      this.host.notice('error', `${failure} Downloading ${alternative.name} instead.`, true);
      const setup = this.host.setup()!;
      const models = setup.models.map((m, i) => (i === index ? plannedModel(alternative) : m));
      this.patchSetup({ models, totalBytes: totalBytes(models) });
    }
  }

  /** Null when the model is installed and ran once; else why it cannot be used (its files are then removed). */
  private async fetchAndCheck(entry: ModelEntry, signal: AbortSignal): Promise<string | null> {
    const root = this.opts.downloadRoot;
    try {
      await fetchModel(entry, { root, signal, fetch: this.opts.fetch, onProgress: (progress) => this.host.emit({ type: 'download', progress }) });
    } catch (err) {
      // The published file is not the catalog's (or is gone): another model may do. Network trouble is retried by the user.
      if (isUserError(err) && isReplaceableDownloadError(err.code)) return err.message;
      throw err;
    }
    this.setCheck(entry.id, 'checking', null);
    const model = await resolveModel(entry, [root]);
    const check = await checkModel(model, { signal });
    if (check.ok) {
      this.setCheck(entry.id, 'ok', check.detail);
      return null;
    }
    // Installed but unusable: removed, so no later start takes it for a working model.
    await rm(model.dir, { recursive: true, force: true });
    const line = failureLine(check, model, 'Its files were removed.');
    this.setCheck(entry.id, 'failed', line);
    return line;
  }
}
