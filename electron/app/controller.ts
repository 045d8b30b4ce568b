/**
 * The assistant behind the window: settings, models and the voice pipeline, driven through the typed
 * contract in ipc-contract.ts. No Electron import: the app (over IPC) and the WebSocket bridge (a
 * browser, the end-to-end tests) run this same controller.
 */
import { AppTools } from '../tools/app-tools';
import path from 'node:path';
import { isUserError, messageOf } from '../errors';
import { apiKeyProblem } from '../secrets/api-key-shape';
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
import type { ModelEntry } from '../../native-models/types';
import { RealtimeClock, type Clock } from '../pipeline/clock';
import { EventHub, type AssistantState } from '../pipeline/events';
import { loadEngines, type LoadedEngines } from '../pipeline/load-engines';
import { VoicePipeline } from '../pipeline/voice-pipeline';
import { RendererOutput } from '../renderer-output';
import { SettingsStore } from '../settings/file';
import { OwnerOnlyFile } from '../secrets/secret-store';
import type { ControllerOptions } from './controller-options';
import { ModelSetup } from './model-setup';
import { runCommand } from './window-commands';
import { answerRequest } from './window-requests';
import { failedModels, initialStatus, llmStatus, loadProgress, turnModelStatus, waitingModels } from './app-status';
import { API_KEY_FILE, ServerAccess, takeKey } from './server-access';
import { keepPatchEnv, McpEnv, MCP_ENV_FILE, MCP_ENV_LABEL, moveEnvOutOfSettings } from './mcp-env';
import { applyDesktop, applyDesktopChange } from '../desktop/desktop-settings';
import { needsReload } from '../settings/reload-rules';
import { mergeSettings, withoutSecrets, type DeepPartial, type Settings } from '../settings/schema';
import { TimerKeeper } from '../timers/timer-keeper';
import { HistoryRecorder } from '../history/recorder';
import { MemoryKeeper } from './memory-keeper';

/** How often timeouts run and playback state is rechecked when no microphone audio drives the pipeline. */
const TICK_INTERVAL_MS = 50;

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
  private status: AppStatus = initialStatus();
  private readonly server: ServerAccess;
  /** The MCP servers' environment values (secrets, out of settings.json). */
  private readonly mcpEnv: McpEnv;
  /** The built-in tools and the MCP servers' (kept running across model reloads). */
  private readonly tools: AppTools;
  private readonly catalog: readonly ModelEntry[];
  private readonly setup: ModelSetup;
  private readonly notices: string[] = [];
  private loading: Promise<void> = Promise.resolve();
  /** Settles once start() has read settings.json (at once when start() was never called). */
  private settingsRead: Promise<void> = Promise.resolve();
  private disposed = false;
  private readonly ticker: ReturnType<typeof setInterval>;
  private lastAudioError = '';
  /** The timers outlive any one pipeline (a models reload makes a new one), so the controller keeps them. */
  private readonly timers: TimerKeeper;
  /** Every turn, logged in the data folder's history/ (electron/history/). */
  private readonly history: HistoryRecorder;
  /** The remembered facts (memory.json) outlive any one pipeline too. */
  private readonly memory: MemoryKeeper;
  /** The pipeline's last state, for a window that connects later (the snapshot). */
  private assistantState: AssistantState = 'listening';

  constructor(private readonly options: ControllerOptions) {
    this.clock = options.clock ?? new RealtimeClock();
    this.catalog = options.catalog ?? ALL_MODELS;
    this.store = new SettingsStore(options.settingsFile);
    const dataDir = options.dataDir ?? path.dirname(options.settingsFile);
    const secrets = options.secrets ?? new OwnerOnlyFile(path.join(dataDir, API_KEY_FILE));
    this.server = new ServerAccess(secrets, this.store, (level, message, keep) => this.notice(level, message, keep), options.fetch);
    this.mcpEnv = new McpEnv(options.mcpSecrets ?? new OwnerOnlyFile(path.join(dataDir, MCP_ENV_FILE), MCP_ENV_LABEL));
    this.tools = new AppTools({ dataDir, clipboard: options.clipboard ?? null, opener: options.opener ?? null, memory: () => this.pipeline?.memoryTools ?? null }, () => this.store.current, {
      env: (server) => this.mcpEnv.valuesFor(server),
      envVersion: (name) => this.mcpEnv.version(name),
      // A server that stops is told once; its restarts show in the Tools panel.
      notice: (level, message) => this.notice(level, message),
      // While settings.json is read the window is told nothing: the snapshot carries it.
      changed: () => (this.status.phase === 'starting' ? void (this.status = { ...this.status, tools: this.tools.status() }) : this.setStatus({ tools: this.tools.status() })),
      version: options.appVersion ?? '0.0.0-dev',
    });
    this.timers = new TimerKeeper(dataDir, {
      running: () => this.pipeline?.timers() ?? null,
      changed: (timers) => this.emit({ type: 'pipeline', event: { type: 'timers', t: this.clock.now(), timers } }),
      notice: (message, keep) => this.notice('error', message, keep),
    });
    const historyDir = path.join(dataDir, 'history');
    this.history = new HistoryRecorder(historyDir, {
      app: options.appVersion ?? '0.0.0-dev',
      catalog: this.catalog,
      onLogged: (session, turns) => this.emit({ type: 'history', session, turns }),
      onError: (message) => this.notice('error', message),
    });
    // The pipeline's memory searches the same history this recorder writes.
    this.memory = new MemoryKeeper(dataDir, historyDir, this.clock, {
      running: () => this.pipeline,
      settings: () => this.store.current,
      event: (event) => this.emit({ type: 'pipeline', event }),
      notice: (message, keep) => this.notice('error', message, keep),
      solved: (message) => {
        const i = this.notices.indexOf(message);
        if (i >= 0) this.notices.splice(i, 1);
      },
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
    this.settingsRead = this.readSettings();
    await this.settingsRead;
    await Promise.all([this.timers.load(), this.memory.load()]);
    await this.reload();
  }

  private async readSettings(): Promise<void> {
    const { notice, foundKey } = await this.store.load();
    if (notice) this.notice('error', notice, true);
    await this.server.moveOutOfSettings(foundKey);
    await moveEnvOutOfSettings(this.mcpEnv, this.store, (level, message, keep) => this.notice(level, message, keep));
    // Before the first load the window has not been told anything: the snapshot carries it.
    const apiKey = await this.server.status();
    const desktop = await applyDesktop(this.options.shell, this.store.current.desktop, (message) => this.notice('error', message, true));
    this.status = { ...this.status, apiKey, desktop };
    this.emit({ type: 'settings', settings: this.settings });
    // The MCP servers start beside the models' load, not after it.
    this.tools.apply();
  }

  /** (Re)loads every model for the current settings; one load at a time. */
  private reload(): Promise<void> {
    this.loading = this.loading.then(() => this.loadNow());
    return this.loading;
  }

  private async loadNow(): Promise<void> {
    if (this.disposed) return;
    await this.unload();
    this.setStatus({ phase: 'loading', setup: null, error: null, llm: null, models: waitingModels() });
    const roots = this.options.modelRoots(this.store.current);
    let engines: LoadedEngines;
    try {
      engines = await loadEngines(
        () => this.store.current,
        roots,
        (kind, phase, model) => this.setModel(kind, loadProgress(phase, model)),
        this.catalog,
        { apiKey: this.store.current.llm.provider === 'openai-compatible' ? await this.server.key() : null, fetch: this.options.fetch },
        // The tools offered now (the built-ins; MCP servers still starting join later): described at load.
        this.tools.toolbox().specs,
      );
    } catch (err) {
      // Models are looked up before any loads, so a missing one fails fast: offer to download it.
      if (isUserError(err) && (err.code === 'model-none-installed' || err.code === 'model-corrupt') && (await this.setup.offer(roots, this.store.current.llm.provider === 'openai-compatible' ? ['llm'] : []))) return;
      // Anything else is the user's to fix: the message says how; the app keeps running.
      const message = messageOf(err, 'Could not load the models');
      this.setStatus({ phase: 'error', error: message, models: failedModels(this.status.models) });
      return;
    }
    if (this.disposed) {
      await engines.dispose();
      return;
    }
    this.engines = engines;
    const turn = turnModelStatus(engines, this.catalog);
    if (turn) this.setModel('turn', turn.status);
    if (turn?.error) this.notice('error', turn.error, true);
    if (engines.llmError) this.notice('error', `${engines.llmError.message} The server answers alone: a turn it fails gets no answer.`, true);
    const tools = this.tools.toolbox(() => this.clock.now());
    const pipeline = new VoicePipeline({ ...engines, tools }, this.output, this.clock, () => this.store.current, {
      keepReports: KEEP_REPORTS,
      timers: this.timers.book,
      onTimersChanged: () => this.timers.save(),
      memory: this.memory.options(),
    });
    this.unsubscribe = pipeline.events.on((event) => {
      // A ring marks the entry fired in the book without a change callback: stored too, so a restart does not ring it again.
      if (event.type === 'timer') this.timers.save();
      if (event.type === 'timers') this.timers.told(event.timers);
      if (event.type === 'state') this.assistantState = event.state;
      if (event.type === 'confirmation') this.setStatus({ confirmation: event.pending });
      if (event.type === 'turn') void this.history.record(event.report, this.store.current, engines.models, this.status.microphone);
      this.emit({ type: 'pipeline', event });
    });
    this.pipeline = pipeline;
    this.setStatus({ phase: 'ready', llm: llmStatus(this.store.current, engines) });
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
      // Its saves wait in its own queue: done before it goes, so the next pipeline starts from what is on disk.
      await pipeline.memory.settled();
    }
    await engines?.dispose().catch((err: unknown) => console.error('Could not release the models:', err));
  }

  snapshot(): Snapshot {
    return { settings: this.settings, status: this.status, notices: [...this.notices], timers: this.timers.views(), state: this.assistantState, memory: this.memory.view() };
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
    runCommand(c, {
      pipeline: this.pipeline,
      output: this.output,
      setup: this.setup,
      timers: this.timers,
      memory: this.memory,
      listening: () => this.status.listening,
      setStatus: (patch) => this.setStatus(patch),
      notice: (level, message) => this.notice(level, message),
    });
  }

  /** From the app's microphone watchdog (main.ts): why the microphone sends nothing, or null when it does again. */
  reportMicrophone(problem: string | null): void {
    if (problem !== this.status.microphoneProblem) this.setStatus({ microphoneProblem: problem });
  }

  /** A request from the renderer; the answer is always a value (errors are in it), never a throw. */
  async request<R extends Request>(raw: R): Promise<ResponseOf<R> | { ok: false; error: string }>;
  async request(raw: unknown): Promise<Responses[Request['type']] | { ok: false; error: string }>;
  async request(raw: unknown): Promise<Responses[Request['type']] | { ok: false; error: string }> {
    const parsed = parseRequest(raw);
    if (!parsed.ok) return { ok: false, error: parsed.error };
    return answerRequest(parsed.value, {
      snapshot: async () => {
        // A window that asks while the app starts gets the settings from the file, not the defaults.
        await this.settingsRead.catch(() => undefined);
        return this.snapshot();
      },
      updateSettings: (patch) => this.updateSettings(patch),
      // No server is left to need its values.
      resetSettings: () => this.changeSettings(() => this.store.reset().then(async (s) => (await this.mcpEnv.keep([]).catch(() => undefined), s))),
      setKey: (key, baseUrl) => this.setKey(key, true, baseUrl),
      history: this.history,
      server: this.server,
      shell: this.options.shell,
    });
  }

  /** A patch from the window; an API key in it goes to the key store, never into settings.json. */
  private async updateSettings(patch: unknown): Promise<SettingsUpdateResult> {
    const { key, rest } = takeKey(patch);
    // Checked before anything is applied: an invalid patch changes nothing.
    const keyProblem = typeof key === 'string' ? apiKeyProblem(key.trim()) : null;
    if (keyProblem) return { ok: false, error: keyProblem };
    let next: Settings;
    try {
      // Checked before anything is applied: an invalid patch changes nothing, the key and the desktop included.
      next = mergeSettings(this.store.current, rest as DeepPartial<Settings>);
    } catch (err) {
      return { ok: false, error: messageOf(err, 'Invalid settings') };
    }
    const refused = await applyDesktopChange(this.options.shell, this.store.current.desktop, next.desktop, (desktop) => this.setStatus({ desktop }));
    if (refused) return { ok: false, error: refused };
    // MCP servers' environment values go to their store; the file keeps their names.
    const env = await keepPatchEnv(this.mcpEnv, rest, next.tools.mcpServers);
    if (!env.ok) return env;
    if (key !== undefined) {
      // The key is for the server this patch sets (or the one already set).
      const stored = await this.setKey(key, false, next.llm.server.baseUrl);
      if (!stored.ok) return stored;
    }
    return this.changeSettings(() => this.store.update(env.patch), key !== undefined);
  }

  /** Stores or removes the key; a server in use is reconnected with it. */
  private async setKey(key: string | null, reload = true, baseUrl?: string): Promise<Responses['set-api-key']> {
    const error = await this.server.store(key, baseUrl);
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
    // the system prompt is rebuilt with the facts (the prompt, memory on or off, its budget).
    this.memory.settingsChanged(before, settings);
    // Servers whose entries (or stored values) changed are restarted; the switches show in the status.
    if (before.tools !== settings.tools) this.tools.apply();
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
    this.timers.close();
    const servers = this.tools.close();
    await this.loading;
    await this.unload();
    await servers;
    await this.timers.flush();
    await this.memory.flush();
    await this.history.flush();
    this.events.clear();
  }
}
