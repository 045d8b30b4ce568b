/**
 * The assistant behind the window: settings, models and the voice pipeline, driven through the typed
 * contract in ipc-contract.ts. No Electron import: the app (over IPC) and the WebSocket bridge (a
 * browser, the end-to-end tests) run this same controller.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { isUserError, UserError } from '../errors';
import {
  parseCommand,
  parseRequest,
  isMicFrame,
  type AppEvent,
  type AppStatus,
  type Command,
  type ModelKind,
  type Request,
  type ModelCheckStatus,
  type ResponseOf,
  type Responses,
  type SettingsUpdateResult,
  type SetupStatus,
  type Snapshot,
} from '../ipc-contract';
import { ALL_MODELS } from '../../native-models/catalog';
import { fetchModel, type FetchFunction } from '../../native-models/downloader';
import type { Hardware } from '../../native-models/recommend';
import { resolveModel } from '../../native-models/resolver';
import { alternativeFor, isReplaceableDownloadError, optionalMissingLine, plannedModel, planSetup, totalBytes, WITHOUT_OPTIONAL } from '../../native-models/setup-plan';
import { checkModel, failureLine, KIND_NOUN } from '../model-check/check';
import { isOptionalKind, type ModelEntry } from '../../native-models/types';
import { RealtimeClock, type Clock } from '../pipeline/clock';
import { EventHub, type TimerView } from '../pipeline/events';
import { loadEngines, type LoadedEngines } from '../pipeline/load-engines';
import { VoicePipeline } from '../pipeline/voice-pipeline';
import { RendererOutput, type AudioSink } from '../renderer-output';
import { SettingsStore } from '../settings/file';
import { OwnerOnlyFile, type SecretStore } from '../secrets/secret-store';
import { listModels, testConnection, type OpenAiLlmOptions } from '../engines/openai-llm';
import { mergeSettings, withoutSecrets, type DeepPartial, type Settings } from '../settings/schema';
import { TimerBook } from '../timers/timer-book';
import { TimerStore } from '../timers/timer-store';
import { HistoryRecorder } from '../history/recorder';

export interface ControllerOptions {
  /** settings.json, created on the first change. */
  settingsFile: string;
  /** Folders searched for models, most specific first, for these settings. */
  modelRoots(settings: Settings): string[];
  /** Where assistant audio goes: the connected renderer, or null. */
  audioSink(): AudioSink | null;
  /** Where first-run downloads go (the user's models folder). */
  downloadRoot: string;
  /** How downloads reach the network (default: Node's fetch; the app passes Electron's net.fetch, which honours system proxies). */
  fetch?: FetchFunction;
  /** The model catalog (a test or a mirror may give its own). */
  catalog?: readonly ModelEntry[];
  /** What the machine offers the LLM (for the recommended size); detected with llama.cpp by default. */
  detectHardware?: () => Promise<Hardware>;
  clock?: Clock;
  /** Where timers.json lives (default: the folder of settingsFile, the app's data folder). */
  dataDir?: string;
  /** The app's version, logged with each turn of the conversation history (the app passes its own). */
  appVersion?: string;
  /** Where the LLM server's API key is kept (default: an owner-only file in dataDir; the app passes safeStorage). */
  secrets?: SecretStore;
}

const KINDS: readonly ModelKind[] = ['vad', 'stt', 'tts', 'llm', 'turn'];

/** Settings that only take effect when the models are loaded again. */
function needsReload(a: Settings, b: Settings): boolean {
  const keys = ['gpuLayers', 'contextSize', 'threads', 'gpu', 'provider'] as const;
  return (
    keys.some((k) => a.llm[k] !== b.llm[k]) ||
    (b.llm.provider === 'openai-compatible' && (a.llm.server.baseUrl !== b.llm.server.baseUrl || a.llm.server.model !== b.llm.server.model)) ||
    (['dir', 'vad', 'stt', 'llm', 'tts', 'turn'] as const).some((k) => a.models[k] !== b.models[k])
  );
}

/** How often timeouts run and playback state is rechecked when no microphone audio drives the pipeline. */
const TICK_INTERVAL_MS = 50;

/** How often the timers list is compared with what the window was last told (see syncTimers). */
const TIMERS_SYNC_MS = 1000;

/** Turn reports the pipeline keeps in memory (the window shows as many); the app may run for days. */
const KEEP_REPORTS = 500;

export class AssistantController {
  private readonly events = new EventHub<AppEvent>();
  private readonly store: SettingsStore;
  private readonly clock: Clock;
  readonly output: RendererOutput;
  private engines: LoadedEngines | null = null;
  private pipeline: VoicePipeline | null = null;
  private unsubscribe: (() => void) | null = null;
  private status: AppStatus = {
    phase: 'starting',
    setup: null,
    listening: true,
    models: KINDS.map((kind) => ({ kind, state: 'waiting' })),
    llm: null,
    apiKey: { stored: false, protection: '' },
    error: null,
  };
  private readonly secrets: SecretStore;
  private readonly catalog: readonly ModelEntry[];
  private download: AbortController | null = null;
  private readonly notices: string[] = [];
  private loading: Promise<void> = Promise.resolve();
  private disposed = false;
  private readonly ticker: ReturnType<typeof setInterval>;
  private lastAudioError = '';
  private readonly timerStore: TimerStore;
  /** The timers outlive any one pipeline (a models reload makes a new one), so the controller keeps them. */
  private timerBook = new TimerBook();
  /** The last save queued, awaited on dispose so the next start reads what this one wrote. */
  private timerSave: Promise<void> = Promise.resolve();
  private lastTimerError = '';
  /** The timers list the window was last sent, as JSON (a window starts with none). */
  private timersSent = '[]';
  private readonly timersTicker: ReturnType<typeof setInterval>;
  /** Every turn, logged in the data folder's history/ (electron/history/). */
  private readonly history: HistoryRecorder;

  constructor(private readonly options: ControllerOptions) {
    this.clock = options.clock ?? new RealtimeClock();
    this.catalog = options.catalog ?? ALL_MODELS;
    this.store = new SettingsStore(options.settingsFile);
    this.secrets = options.secrets ?? new OwnerOnlyFile(path.join(options.dataDir ?? path.dirname(options.settingsFile), API_KEY_FILE));
    this.timerStore = new TimerStore(options.dataDir ?? path.dirname(options.settingsFile));
    this.history = new HistoryRecorder(path.join(options.dataDir ?? path.dirname(options.settingsFile), 'history'), {
      app: options.appVersion ?? '0.0.0-dev',
      catalog: this.catalog,
      onLogged: (session, turns) => this.emit({ type: 'history', session, turns }),
      onError: (message) => this.notice('error', message),
    });
    this.output = new RendererOutput(options.audioSink, this.clock);
    this.ticker = setInterval(() => this.pipeline?.tick(), TICK_INTERVAL_MS);
    this.ticker.unref?.();
    this.timersTicker = setInterval(() => this.syncTimers(), TIMERS_SYNC_MS);
    this.timersTicker.unref?.();
  }

  /** The settings as the window may see them: never with an API key. */
  get settings(): Settings {
    return withoutSecrets(this.store.current);
  }

  on(fn: (e: AppEvent) => void): () => void {
    return this.events.on(fn);
  }

  private emit(e: AppEvent): void {
    this.events.emit(e);
  }

  private notice(level: 'info' | 'error', message: string, keep = false): void {
    if (keep) this.notices.push(message);
    this.emit({ type: 'notice', level, message });
  }

  private setStatus(patch: Partial<AppStatus>): void {
    this.status = { ...this.status, ...patch };
    this.emit({ type: 'status', status: this.status });
  }

  private setModel(kind: ModelKind, patch: Partial<AppStatus['models'][number]>): void {
    this.setStatus({ models: this.status.models.map((m) => (m.kind === kind ? { ...m, ...patch } : m)) });
  }

  /** Reads the settings, then loads the models. Resolves when the assistant is ready or has failed (see status). */
  async start(): Promise<void> {
    const { notice } = await this.store.load();
    if (notice) this.notice('error', notice, true);
    await this.moveKeyOutOfSettings();
    await this.refreshKeyStatus();
    this.emit({ type: 'settings', settings: this.settings });
    // Loaded once, before the first pipeline: it fires anything that fell due while the app was closed.
    const timers = await this.timerStore.load();
    this.timerBook = timers.book;
    if (timers.notice) this.notice('error', timers.notice, true);
    // Finished entries are kept a day for nothing but this file; without pruning it would grow for good.
    if (this.timerBook.prune(Date.now()).length > 0) this.saveTimers();
    await this.reload();
  }

  /** Stores the timers; a failure is shown (once per distinct message), never thrown. */
  private saveTimers(): void {
    this.timerBook.prune(Date.now());
    this.timerSave = this.timerStore.save(this.timerBook).then(
      () => {
        this.lastTimerError = '';
      },
      (err: unknown) => {
        const message = messageOf(err, 'Could not save the timers');
        if (message !== this.lastTimerError) this.notice('error', message);
        this.lastTimerError = message;
      },
    );
  }

  /**
   * Sends the timers list when it differs from the last one sent. Some changes come with no pipeline
   * event: a ring that runs out by itself (an alarm after its minute) would otherwise stay "ringing"
   * in the window, its Stop button doing nothing.
   */
  private syncTimers(): void {
    const timers = this.timerViews();
    const json = JSON.stringify(timers);
    if (json === this.timersSent) return;
    this.timersSent = json;
    this.emit({ type: 'pipeline', event: { type: 'timers', t: this.clock.now(), timers } });
  }

  /** Timers and alarms pending or ringing, as the window lists them (from the book itself while no pipeline runs). */
  private timerViews(): TimerView[] {
    if (this.pipeline) return this.pipeline.timers();
    const now = Date.now();
    const ringing = this.timerBook.ringing(now);
    return [...ringing.map((t) => ({ t, ringing: true })), ...this.timerBook.active(now).map((t) => ({ t, ringing: false }))].map(({ t, ringing: r }) => ({
      id: t.id,
      kind: t.kind,
      name: t.name,
      durationMs: t.durationMs,
      dueAtMs: t.dueAtMs,
      ringing: r,
    }));
  }

  /** (Re)loads every model for the current settings; one load at a time. */
  private reload(): Promise<void> {
    this.loading = this.loading.then(() => this.loadNow());
    return this.loading;
  }

  private async loadNow(): Promise<void> {
    if (this.disposed) return;
    await this.unload();
    this.setStatus({ phase: 'loading', setup: null, error: null, llm: null, models: KINDS.map((kind) => ({ kind, state: 'waiting' })) });
    const roots = this.options.modelRoots(this.store.current);
    let engines: LoadedEngines;
    try {
      engines = await loadEngines(
        () => this.store.current,
        roots,
        (kind, phase, model) =>
          this.setModel(kind, phase === 'loading' ? { state: 'loading' } : { state: 'ready', id: model?.id, name: model?.name, loadMs: model?.loadMs, ...(typeof model?.layout === 'string' ? { layout: model.layout } : {}) }),
        this.catalog,
        { apiKey: this.store.current.llm.provider === 'openai-compatible' ? await this.readKey() : null, fetch: this.options.fetch },
      );
    } catch (err) {
      // Models are looked up before any loads, so a missing one fails fast: offer to download it.
      if (isUserError(err) && (err.code === 'model-none-installed' || err.code === 'model-corrupt') && (await this.offerSetup(roots))) return;
      // Anything else is the user's to fix: the message says how; the app keeps running.
      const message = messageOf(err, 'Could not load the models');
      this.setStatus({ phase: 'error', error: message, models: this.status.models.map((m) => (m.state === 'ready' ? m : { ...m, state: 'error' })) });
      return;
    }
    if (this.disposed) {
      await engines.dispose();
      return;
    }
    this.engines = engines;
    this.reportTurnModel(engines);
    if (engines.llmError) this.notice('error', `${engines.llmError.message} The server answers alone: a turn it fails gets no answer.`, true);
    const info = engines.llm.info;
    const pipeline = new VoicePipeline(engines, this.output, this.clock, () => this.store.current, {
      keepReports: KEEP_REPORTS,
      timers: this.timerBook,
      onTimersChanged: () => this.saveTimers(),
    });
    this.unsubscribe = pipeline.events.on((event) => {
      // A ring marks the entry fired in the book without a change callback: stored too, so a restart does not ring it again.
      if (event.type === 'timer') this.saveTimers();
      if (event.type === 'timers') this.timersSent = JSON.stringify(event.timers);
      if (event.type === 'turn') void this.history.record(event.report, this.store.current, engines.models);
      this.emit({ type: 'pipeline', event });
    });
    this.pipeline = pipeline;
    this.setStatus({
      phase: 'ready',
      llm: {
        backend: info.backend,
        gpuDevices: info.gpuDevices,
        gpuLayers: info.gpuLayers,
        totalLayers: info.totalLayers,
        contextSize: info.contextSize,
        softwareGpuSkipped: info.softwareGpuSkipped,
        ...(info.backend === 'server' ? { server: serverStatus(this.store.current, engines) } : {}),
      },
    });
  }

  /** The key from its store; an unreadable store is shown, and the server is then asked without one. */
  private async readKey(): Promise<string | null> {
    try {
      return await this.secrets.get();
    } catch (err) {
      this.notice('error', messageOf(err, 'Could not read the API key'), true);
      return null;
    }
  }

  private async refreshKeyStatus(): Promise<void> {
    let stored = false;
    try {
      stored = (await this.secrets.get()) !== null;
    } catch {
      // reported by readKey when the key is needed
    }
    const apiKey = { stored, protection: this.secrets.protection };
    // Before the first load the window has not been told anything yet: the snapshot carries it.
    if (this.status.phase === 'starting') this.status = { ...this.status, apiKey };
    else this.setStatus({ apiKey });
  }

  /** A key written into settings.json by hand goes to the key store, and out of the file. */
  private async moveKeyOutOfSettings(): Promise<void> {
    const key = this.store.current.llm.server.apiKey;
    if (key === undefined) return;
    try {
      if (key) await this.secrets.set(key);
      await this.store.replace(withoutSecrets(this.store.current));
      if (key) this.notice('info', `The API key found in settings.json was moved out of it: it is now ${this.secrets.protection}.`);
    } catch (err) {
      this.notice('error', messageOf(err, 'Could not move the API key out of settings.json'), true);
    }
  }

  /** Stores or removes the key; a server in use is reconnected with it. */
  private async setKey(key: string | null, reload = true): Promise<{ ok: true; stored: boolean } | { ok: false; error: string }> {
    try {
      await this.secrets.set(key);
    } catch (err) {
      return { ok: false, error: messageOf(err, 'Could not store the API key') };
    }
    await this.refreshKeyStatus();
    if (reload && this.store.current.llm.provider === 'openai-compatible') void this.reload();
    return { ok: true, stored: this.status.apiKey.stored };
  }

  /** The server at `baseUrl` (default: the settings'), with the stored key. */
  private async serverTarget(baseUrl: string | undefined, model: string | undefined): Promise<OpenAiLlmOptions> {
    const server = this.store.current.llm.server;
    const key = await this.secrets.get();
    return { baseUrl: baseUrl ?? server.baseUrl, model: model ?? server.model, ...(key ? { apiKey: key } : {}), ...(this.options.fetch ? { fetch: this.options.fetch } : {}) };
  }

  private async serverModels(baseUrl: string | undefined): Promise<Responses['llm-server-models']> {
    try {
      const t = await this.serverTarget(baseUrl, undefined);
      return { ok: true, models: await listModels(t.baseUrl, t.apiKey, t.fetch) };
    } catch (err) {
      return { ok: false, error: messageOf(err, 'Could not list the server\'s models') };
    }
  }

  private async serverTest(baseUrl: string | undefined, model: string | undefined): Promise<Responses['llm-server-test']> {
    try {
      const t = await this.serverTarget(baseUrl, model);
      if (!t.model) return { ok: false, error: 'Choose a model first: the test asks it for one word.' };
      return { ok: true, ...(await testConnection({ ...t, timeoutMs: SERVER_TEST_TIMEOUT_MS })) };
    } catch (err) {
      return { ok: false, error: messageOf(err, 'The connection test failed') };
    }
  }

  /** The end-of-turn model is optional: missing, it is only explained; broken, it is reported, and the assistant runs without it. */
  private reportTurnModel(engines: LoadedEngines): void {
    if (engines.turn) return;
    if (engines.turnError) {
      const line = `${engines.turnError.message} The assistant runs without it: ${WITHOUT_OPTIONAL.turn}.`;
      this.setModel('turn', { state: 'error', detail: line });
      this.notice('error', line, true);
    } else this.setModel('turn', { state: 'missing', detail: optionalMissingLine('turn', this.catalog) });
  }

  /**
   * First run (or a model deleted since): when a kind has no model installed, the window shows what
   * will be downloaded instead of an error. True when setup is needed.
   */
  private async offerSetup(roots: string[]): Promise<boolean> {
    const detect = this.options.detectHardware ?? (async () => (await import('../engines/hardware')).detectHardware());
    let plan;
    try {
      // A server runs the language model: none is downloaded for it (an installed one is its fallback).
      plan = await planSetup(this.catalog, roots, detect, { notNeeded: this.store.current.llm.provider === 'openai-compatible' ? ['llm'] : [] });
    } catch (err) {
      this.setStatus({ phase: 'error', error: messageOf(err, 'Could not work out which models to download') });
      return true;
    }
    if (!plan) return false;
    this.setStatus({ phase: 'setup', setup: { ...plan, folder: this.options.downloadRoot, state: 'waiting', error: null, checks: {} } });
    return true;
  }

  private patchSetup(patch: Partial<SetupStatus>): void {
    const setup = this.status.setup;
    if (setup) this.setStatus({ setup: { ...setup, ...patch } });
  }

  private setCheck(id: string, state: ModelCheckStatus['state'], detail: string | null): void {
    const setup = this.status.setup;
    if (setup) this.patchSetup({ checks: { ...setup.checks, [id]: { state, detail } } });
  }

  /**
   * Downloads the setup plan's models, proves each one loads and runs, then starts the assistant.
   * A model that cannot be used is replaced by another of its kind when the catalog has one; the
   * assistant never starts with a model that failed its check.
   */
  private async downloadModels(): Promise<void> {
    if (!this.status.setup || this.download) return;
    const abort = new AbortController();
    this.download = abort;
    this.patchSetup({ state: 'downloading', error: null });
    const skipped: string[] = [];
    try {
      for (let i = 0; i < (this.status.setup?.models.length ?? 0); i++) {
        if (!this.status.setup!.models[i]!.optional) await this.install(i, abort.signal);
        else if (!(await this.installOptional(i, abort.signal))) skipped.push(this.status.setup!.models[i]!.name);
      }
    } catch (err) {
      const cancelled = abort.signal.aborted;
      this.patchSetup({ state: cancelled ? 'cancelled' : 'failed', error: cancelled ? null : messageOf(err, 'The download failed') });
      return;
    } finally {
      this.download = null;
    }
    this.notice('info', `The models are downloaded, verified, and each one ran once${skipped.length ? ` (${skipped.join(', ')} skipped)` : ''}.`);
    await this.reload();
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
      const planned = this.status.setup!.models[index]!;
      const line = `${messageOf(err, `Could not download ${planned.name}`)} The assistant starts without it: ${WITHOUT_OPTIONAL[planned.kind] ?? 'it is optional'}.`;
      this.setCheck(planned.id, 'skipped', line);
      this.notice('error', line, true);
      return false;
    }
  }

  /** Downloads and checks the plan's model at `index`, switching to an alternative when it cannot be used. */
  private async install(index: number, signal: AbortSignal): Promise<void> {
    const tried = new Set<string>();
    for (;;) {
      const planned = this.status.setup!.models[index]!;
      const entry = this.catalog.find((e) => e.id === planned.id);
      if (!entry) throw new Error(`${planned.id} is not in the catalog`);
      tried.add(entry.id);
      const failure = await this.fetchAndCheck(entry, signal);
      if (failure === null) return;
      if (signal.aborted) throw new UserError('The download was cancelled.', 'download-cancelled');
      const alternative = alternativeFor(this.catalog, entry.kind, tried);
      if (!alternative) {
        const none = isOptionalKind(entry.kind) ? '' : ` No other ${KIND_NOUN[entry.kind]} is in the catalog: please report this.`;
        throw new UserError(failure + none, 'model-unusable');
      }
      this.notice('error', `${failure} Downloading ${alternative.name} instead.`, true);
      const setup = this.status.setup!;
      const models = setup.models.map((m, i) => (i === index ? plannedModel(alternative) : m));
      this.patchSetup({ models, totalBytes: totalBytes(models) });
    }
  }

  /** Null when the model is installed and ran once; else why it cannot be used (its files are then removed). */
  private async fetchAndCheck(entry: ModelEntry, signal: AbortSignal): Promise<string | null> {
    const root = this.options.downloadRoot;
    try {
      await fetchModel(entry, { root, signal, fetch: this.options.fetch, onProgress: (progress) => this.emit({ type: 'download', progress }) });
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

  private async unload(): Promise<void> {
    const { pipeline, engines } = this;
    this.pipeline = null;
    this.engines = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (pipeline) {
      pipeline.stopSpeaking();
      await pipeline.drain().catch(() => undefined);
    }
    await engines?.dispose().catch((err: unknown) => console.error('Could not release the models:', err));
  }

  snapshot(): Snapshot {
    return { settings: this.settings, status: this.status, notices: [...this.notices], timers: this.timerViews() };
  }

  /** One microphone frame from the renderer; anything that is not one is dropped. */
  pushAudio(frame: unknown): void {
    if (!isMicFrame(frame) || !this.status.listening || !this.pipeline) return;
    this.pipeline.pushAudio(frame).catch((err: unknown) => {
      // Reported once per distinct failure, not once per 20 ms frame.
      const message = messageOf(err, 'Audio processing failed');
      if (message !== this.lastAudioError) this.notice('error', message);
      this.lastAudioError = message;
    });
  }

  /** A command from the renderer; an invalid one is reported, never acted on. */
  command(raw: unknown): void {
    const parsed = parseCommand(raw);
    if (!parsed.ok) {
      this.notice('error', `Ignored a malformed message from the window: ${parsed.error}.`);
      return;
    }
    this.run(parsed.value);
  }

  private run(c: Command): void {
    const p = this.pipeline;
    switch (c.type) {
      case 'set-listening':
        if (!c.listening) p?.endTurnNow('input-ended');
        this.setStatus({ listening: c.listening });
        break;
      case 'push-to-talk':
        p?.pushToTalk(c.down);
        break;
      case 'interrupt':
        p?.stopSpeaking();
        break;
      case 'reset-conversation':
        p?.resetConversation()
          .then(() => this.notice('info', 'Started a new conversation.'))
          .catch((err: unknown) => this.notice('error', messageOf(err, 'Could not reset the conversation')));
        break;
      case 'playback-progress':
        this.output.reportProgress(c.position);
        break;
      case 'download-models':
        void this.downloadModels();
        break;
      case 'cancel-download':
        this.download?.abort();
        break;
      case 'cancel-timer':
        if (p) p.cancelTimer(c.id);
        // Between pipelines (a reload): on the book itself, so the button never does nothing.
        else if (this.timerBook.cancel(Date.now(), { id: c.id }).length > 0) this.timersChangedOffline();
        break;
      case 'stop-ringing':
        if (p) p.stopRinging();
        else if (this.timerBook.stop(Date.now()).length > 0) this.timersChangedOffline();
        break;
    }
  }

  /** The book changed with no pipeline to say so: stored, and the window told in the pipeline's own terms. */
  private timersChangedOffline(): void {
    this.saveTimers();
    this.syncTimers();
  }

  /** A request from the renderer; the answer is always a value (errors are in it), never a throw. */
  async request<R extends Request>(raw: R): Promise<ResponseOf<R> | { ok: false; error: string }>;
  async request(raw: unknown): Promise<Responses[Request['type']] | { ok: false; error: string }>;
  async request(raw: unknown): Promise<Responses[Request['type']] | { ok: false; error: string }> {
    const parsed = parseRequest(raw);
    if (!parsed.ok) return { ok: false, error: parsed.error };
    const r = parsed.value;
    switch (r.type) {
      case 'get-snapshot':
        return this.snapshot();
      case 'update-settings':
        return this.updateSettings(r.patch);
      case 'reset-settings':
        return this.changeSettings(() => this.store.reset());
      case 'history-sessions':
        return this.history.sessions();
      case 'history-session':
        return this.history.session(r.id);
      case 'history-summary':
        return this.history.summary(r.since);
      case 'clear-history':
        return this.history.clear();
      case 'llm-server-models':
        return this.serverModels(r.baseUrl);
      case 'llm-server-test':
        return this.serverTest(r.baseUrl, r.model);
      case 'set-api-key':
        return this.setKey(r.key);
    }
  }

  /** A patch from the window; an API key in it goes to the key store, never into settings.json. */
  private async updateSettings(patch: unknown): Promise<SettingsUpdateResult> {
    const { key, rest } = takeKey(patch);
    if (key === undefined) return this.changeSettings(() => this.store.update(rest));
    try {
      // The rest is checked before the key is stored: an invalid patch changes nothing.
      mergeSettings(this.store.current, rest as DeepPartial<Settings>);
    } catch (err) {
      return { ok: false, error: messageOf(err, 'Invalid settings') };
    }
    const stored = await this.setKey(key, false);
    if (!stored.ok) return stored;
    return this.changeSettings(() => this.store.update(rest), true);
  }

  private async changeSettings(change: () => Promise<Settings>, keyChanged = false): Promise<SettingsUpdateResult> {
    const before = this.store.current;
    let settings: Settings;
    try {
      settings = await change();
    } catch (err) {
      return { ok: false, error: messageOf(err, 'Could not save the settings') };
    }
    this.emit({ type: 'settings', settings: withoutSecrets(settings) });
    // Endpointing, barge-in, voice and sampling settings are read live by the pipeline; these are not:
    if (before.llm.systemPrompt !== settings.llm.systemPrompt) this.pipeline?.conversation.setSystemPrompt(settings.llm.systemPrompt);
    if (needsReload(before, settings) || (keyChanged && settings.llm.provider === 'openai-compatible')) {
      this.notice('info', 'Reloading the models with the new settings…');
      void this.reload();
    }
    return { ok: true, settings: withoutSecrets(settings) };
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.download?.abort();
    clearInterval(this.ticker);
    clearInterval(this.timersTicker);
    await this.loading;
    await this.unload();
    await this.timerSave;
    await this.history.flush();
    this.events.clear();
  }
}

/** The key file's name in the data folder (dev:web; the app's safeStorage store names its own). */
export const API_KEY_FILE = 'llm-api-key';

/** How long "test connection" waits for the server (a cold Ollama loads the model first). */
const SERVER_TEST_TIMEOUT_MS = 60_000;


/** Splits a settings patch into its API key (undefined when it has none) and the rest. */
function takeKey(patch: unknown): { key: string | null | undefined; rest: unknown } {
  const llm = (patch as { llm?: unknown })?.llm;
  const server = (llm as { server?: unknown })?.server;
  if (typeof server !== 'object' || server === null || !('apiKey' in server)) return { key: undefined, rest: patch };
  const { apiKey, ...otherServer } = server as Record<string, unknown>;
  // Anything but text or null stays in the patch, for validation to refuse (without echoing it).
  if (typeof apiKey !== 'string' && apiKey !== null) return { key: undefined, rest: patch };
  const key = apiKey;
  const rest = { ...(patch as object), llm: { ...(llm as object), server: otherServer } };
  return { key, rest };
}

function serverStatus(s: Settings, engines: LoadedEngines): { baseUrl: string; model: string; fallback: string | null } {
  const fallback = (engines.models.llm as { fallback?: { id: string } | null }).fallback;
  return { baseUrl: s.llm.server.baseUrl, model: s.llm.server.model, fallback: fallback?.id ?? null };
}

function messageOf(err: unknown, what: string): string {
  if (isUserError(err)) return err.message;
  console.error(err);
  return `${what}: ${err instanceof Error ? err.message : String(err)}`;
}
