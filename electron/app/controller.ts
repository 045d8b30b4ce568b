/**
 * The assistant behind the window: settings, models and the voice pipeline, driven through the typed
 * contract in ipc-contract.ts. No Electron import: the app (over IPC) and the WebSocket bridge (a
 * browser, the end-to-end tests) run this same controller.
 */
import path from 'node:path';
import { isUserError } from '../errors';
import {
  parseCommand,
  parseRequest,
  isMicFrame,
  type AppEvent,
  type AppStatus,
  type Command,
  type ModelKind,
  type Request,
  type ResponseOf,
  type Responses,
  type SettingsUpdateResult,
  type Snapshot,
} from '../ipc-contract';
import { ALL_MODELS } from '../../native-models/catalog';
import type { FetchFunction } from '../../native-models/downloader';
import type { Hardware } from '../../native-models/recommend';
import { optionalMissingLine, WITHOUT_OPTIONAL } from '../../native-models/setup-plan';
import type { ModelEntry } from '../../native-models/types';
import { RealtimeClock, type Clock } from '../pipeline/clock';
import { EventHub, type AssistantState } from '../pipeline/events';
import { timerViews, type TimerView } from '../timers/timer-view';
import { loadEngines, type LoadedEngines } from '../pipeline/load-engines';
import { VoicePipeline } from '../pipeline/voice-pipeline';
import { RendererOutput, type AudioSink } from '../renderer-output';
import { SettingsStore } from '../settings/file';
import { OwnerOnlyFile, type SecretStore } from '../secrets/secret-store';
import { messageOf } from './messages';
import { ModelSetup } from './model-setup';
import { API_KEY_FILE, ServerAccess, takeKey } from './server-access';
import type { DesktopShell } from '../desktop/shell';
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
  /** The global shortcut and start at login (the Electron app's; none in dev:web and the tests). */
  shell?: DesktopShell;
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
    desktop: { shell: false, shortcut: '', shortcutError: null },
    error: null,
  };
  private readonly server: ServerAccess;
  private readonly catalog: readonly ModelEntry[];
  private readonly setup: ModelSetup;
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
  /** The pipeline's last state, for a window that connects later (the snapshot). */
  private assistantState: AssistantState = 'listening';

  constructor(private readonly options: ControllerOptions) {
    this.clock = options.clock ?? new RealtimeClock();
    this.catalog = options.catalog ?? ALL_MODELS;
    this.store = new SettingsStore(options.settingsFile);
    const secrets = options.secrets ?? new OwnerOnlyFile(path.join(options.dataDir ?? path.dirname(options.settingsFile), API_KEY_FILE));
    this.server = new ServerAccess(secrets, this.store, (level, message, keep) => this.notice(level, message, keep), options.fetch);
    this.timerStore = new TimerStore(options.dataDir ?? path.dirname(options.settingsFile));
    this.history = new HistoryRecorder(path.join(options.dataDir ?? path.dirname(options.settingsFile), 'history'), {
      app: options.appVersion ?? '0.0.0-dev',
      catalog: this.catalog,
      onLogged: (session, turns) => this.emit({ type: 'history', session, turns }),
      onError: (message) => this.notice('error', message),
    });
    this.output = new RendererOutput(options.audioSink, this.clock);
    // A server runs the language model: none is downloaded for it (an installed one is its fallback).
    this.setup = new ModelSetup(
      {
        setup: () => this.status.setup,
        setStatus: (patch) => this.setStatus(patch),
        notice: (level, message, keep) => this.notice(level, message, keep),
        emit: (e) => this.emit(e),
        reload: () => this.reload(),
      },
      { catalog: this.catalog, downloadRoot: options.downloadRoot, fetch: options.fetch, detectHardware: options.detectHardware },
    );
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
    await this.server.moveOutOfSettings();
    // Before the first load the window has not been told anything: the snapshot carries it.
    this.status = { ...this.status, apiKey: await this.server.status(), desktop: await this.applyDesktop(this.store.current) };
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
    return timerViews(this.timerBook, Date.now());
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
        { apiKey: this.store.current.llm.provider === 'openai-compatible' ? await this.server.key() : null, fetch: this.options.fetch },
      );
    } catch (err) {
      // Models are looked up before any loads, so a missing one fails fast: offer to download it.
      if (isUserError(err) && (err.code === 'model-none-installed' || err.code === 'model-corrupt') && (await this.setup.offer(roots, this.store.current.llm.provider === 'openai-compatible' ? ['llm'] : []))) return;
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
      if (event.type === 'state') this.assistantState = event.state;
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

  /** The end-of-turn model is optional: missing, it is only explained; broken, it is reported, and the assistant runs without it. */
  private reportTurnModel(engines: LoadedEngines): void {
    if (engines.turn) return;
    if (engines.turnError) {
      const line = `${engines.turnError.message} The assistant runs without it: ${WITHOUT_OPTIONAL.turn}.`;
      this.setModel('turn', { state: 'error', detail: line });
      this.notice('error', line, true);
    } else this.setModel('turn', { state: 'missing', detail: optionalMissingLine('turn', this.catalog) });
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
    return { settings: this.settings, status: this.status, notices: [...this.notices], timers: this.timerViews(), state: this.assistantState };
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
        void this.setup.download();
        break;
      case 'cancel-download':
        this.setup.cancel();
        break;
      case 'cancel-timer':
        if (p) p.cancelTimer(c.id);
        // Between pipelines (a reload): on the book itself, so the button never does nothing.
        else if (this.timerBook.cancel(Date.now(), { id: c.id }).length > 0) this.timersChangedOffline();
        break;
      case 'activate':
        // An activation is a request to talk: a muted microphone is turned back on for it.
        if (!this.status.listening) this.setStatus({ listening: true });
        p?.activate();
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
        return this.server.models(r.baseUrl);
      case 'llm-server-test':
        return this.server.test(r.baseUrl, r.model);
      case 'set-api-key':
        return this.setKey(r.key);
    }
  }

  /** A patch from the window; an API key in it goes to the key store, never into settings.json. */
  private async updateSettings(patch: unknown): Promise<SettingsUpdateResult> {
    const { key, rest } = takeKey(patch);
    let next: Settings;
    try {
      // Checked before anything is applied: an invalid patch changes nothing, the key and the desktop included.
      next = mergeSettings(this.store.current, rest as DeepPartial<Settings>);
    } catch (err) {
      return { ok: false, error: messageOf(err, 'Invalid settings') };
    }
    const refused = await this.applyDesktopChange(next);
    if (refused) return { ok: false, error: refused };
    if (key !== undefined) {
      const stored = await this.setKey(key, false);
      if (!stored.ok) return stored;
    }
    return this.changeSettings(() => this.store.update(rest), key !== undefined);
  }

  /**
   * Applies the desktop settings at start. A shortcut another program holds is reported (the window
   * says so beside the setting) and the assistant runs without it.
   */
  private async applyDesktop(s: Settings): Promise<AppStatus['desktop']> {
    const shell = this.options.shell;
    if (!shell) return { shell: false, shortcut: s.desktop.shortcut, shortcutError: null };
    const shortcutError = shell.setShortcut(s.desktop.shortcut);
    if (shortcutError) this.notice('error', shortcutError, true);
    // Only an "on" is re-applied at start (it refreshes a moved app's path); "off" is applied when
    // changed, so a login item the user added in the system's own settings is left alone.
    const loginError = s.desktop.startAtLogin ? await shell.setStartAtLogin(true) : null;
    if (loginError) this.notice('error', loginError, true);
    return { shell: true, shortcut: shortcutError ? '' : s.desktop.shortcut, shortcutError };
  }

  /**
   * A patch that changes the shortcut or start at login is applied to the desktop before it is
   * saved: a shortcut another program holds is refused, and the setting is not saved as if it
   * worked. Returns why, or null.
   */
  private async applyDesktopChange(next: Settings): Promise<string | null> {
    const shell = this.options.shell;
    if (!shell) return null;
    const before = this.store.current.desktop;
    if (next.desktop.shortcut !== before.shortcut) {
      const error = shell.setShortcut(next.desktop.shortcut);
      if (error) return error;
      this.setStatus({ desktop: { shell: true, shortcut: next.desktop.shortcut, shortcutError: null } });
    }
    if (next.desktop.startAtLogin !== before.startAtLogin) {
      const error = await shell.setStartAtLogin(next.desktop.startAtLogin);
      if (error) return error;
    }
    return null;
  }

  /** Stores or removes the key; a server in use is reconnected with it. */
  private async setKey(key: string | null, reload = true): Promise<Responses['set-api-key']> {
    const error = await this.server.store(key);
    if (error) return { ok: false, error };
    this.setStatus({ apiKey: await this.server.status() });
    if (reload && this.store.current.llm.provider === 'openai-compatible') void this.reload();
    return { ok: true, stored: this.status.apiKey.stored };
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
    this.setup.cancel();
    clearInterval(this.ticker);
    clearInterval(this.timersTicker);
    await this.loading;
    await this.unload();
    await this.timerSave;
    await this.history.flush();
    this.events.clear();
  }
}

function serverStatus(s: Settings, engines: LoadedEngines): { baseUrl: string; model: string; fallback: string | null } {
  const fallback = (engines.models.llm as { fallback?: { id: string } | null }).fallback;
  return { baseUrl: s.llm.server.baseUrl, model: s.llm.server.model, fallback: fallback?.id ?? null };
}
