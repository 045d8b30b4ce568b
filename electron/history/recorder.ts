/**
 * The conversation history as the app and `talk --log` use it: each finished turn logged with what
 * it ran on (model tags, a hash of the settings, the app version), and the window's history
 * requests answered as values, never throws.
 */
import type { ModelEntry } from '../../native-models/types';
import type { HistoryResult } from '../ipc-contract';
import type { TurnReport } from '../pipeline/report';
import type { Settings } from '../settings/schema';
import { loggedMicrophone, type MicrophoneSettings } from '../microphone-settings';
import type { HistorySession, HistorySessionInfo, LoggedModelKind, LogSummary } from './log-format';
import { modelTags } from './model-tags';
import { SessionLog, type AppendResult, type SessionLogOptions } from './session-log';
import { settingsHash } from './settings-hash';
import { summarize } from './summary';

export interface RecorderOptions extends SessionLogOptions {
  /** The app's version, logged with every turn. */
  app: string;
  /** Where the models' sha256 come from. */
  catalog: readonly ModelEntry[];
  /** After each turn written: the session and how many turns it has. */
  onLogged?: (session: string, turns: number) => void;
  /** A write failed; called once per distinct message until a write succeeds again. */
  onError?: (message: string) => void;
}

export type LoadedModels = Partial<Record<LoggedModelKind, { id: string } | null | undefined>>;

export class HistoryRecorder {
  readonly log: SessionLog;
  private lastError = '';

  constructor(
    dir: string,
    private readonly options: RecorderOptions,
  ) {
    this.log = new SessionLog(dir, options);
  }

  /**
   * Logs one turn; its words only when the settings allow it. `microphone`: what the browser applied
   * to it (the app; `talk` reads a file and has none), logged without the device's name.
   */
  async record(report: TurnReport, settings: Settings, models: LoadedModels, microphone?: MicrophoneSettings | null): Promise<AppendResult> {
    const result = await this.log.append(report, {
      app: this.options.app,
      settingsHash: settingsHash(settings),
      models: modelTags(models, this.options.catalog),
      ...(microphone ? { microphone: loggedMicrophone(microphone) } : {}),
      texts: settings.history.logText,
    });
    if (result.ok) {
      this.lastError = '';
      this.options.onLogged?.(this.log.session, result.turns);
    } else if (result.error !== this.lastError) {
      this.lastError = result.error;
      this.options.onError?.(result.error);
    }
    return result;
  }

  sessions(): Promise<HistoryResult<{ sessions: HistorySessionInfo[] }>> {
    return answer(async () => ({ sessions: await this.log.list() }));
  }

  session(id: string): Promise<HistoryResult<{ session: HistorySession }>> {
    return answer(async () => ({ session: await this.log.read(id) }));
  }

  summary(since?: string): Promise<HistoryResult<{ summary: LogSummary }>> {
    return answer(async () => {
      const { turns } = await this.log.readAll();
      return { summary: summarize(turns, since === undefined ? {} : { since: new Date(since) }) };
    });
  }

  clear(): Promise<HistoryResult> {
    return answer(async () => {
      await this.log.clear();
      return {};
    });
  }

  /** Waits for every queued write (before the app exits). */
  flush(): Promise<void> {
    return this.log.flush();
  }
}

async function answer<T extends object>(op: () => Promise<T>): Promise<HistoryResult<T>> {
  try {
    return { ok: true, ...(await op()) };
  } catch (e) {
    return { ok: false, error: `The conversation history: ${e instanceof Error ? e.message : String(e)}` };
  }
}
