/**
 * The window's requests (ipc-contract.ts `Request`, already validated) answered by the parts of
 * the app around the pipeline, as window-commands.ts carries out its commands. Every answer is a
 * value, errors included.
 */
import type { Request, Responses, SettingsUpdateResult, Snapshot } from '../ipc-contract';
import type { DesktopShell } from '../desktop/shell';
import type { HistoryRecorder } from '../history/recorder';
import type { ServerAccess } from './server-access';

/** What a request is answered from. */
export interface RequestParts {
  /** Waits until settings.json has been read. */
  snapshot(): Promise<Snapshot>;
  updateSettings(patch: unknown): Promise<SettingsUpdateResult>;
  resetSettings(): Promise<SettingsUpdateResult>;
  setKey(key: string | null, baseUrl: string | undefined): Promise<Responses['set-api-key']>;
  history: HistoryRecorder;
  server: ServerAccess;
  /** The desktop app's; none in dev:web and talk. */
  shell: DesktopShell | undefined;
}

export async function answerRequest(r: Request, on: RequestParts): Promise<Responses[Request['type']]> {
  switch (r.type) {
    case 'get-snapshot':
      return on.snapshot();
    case 'update-settings':
      return on.updateSettings(r.patch);
    case 'reset-settings':
      return on.resetSettings();
    case 'history-sessions':
      return on.history.sessions();
    case 'history-session':
      return on.history.session(r.id);
    case 'history-summary':
      return on.history.summary(r.since);
    case 'clear-history':
      return on.history.clear();
    case 'llm-server-models':
      return on.server.models(r.baseUrl);
    case 'llm-server-test':
      return on.server.test(r.baseUrl, r.model);
    case 'set-api-key':
      return on.setKey(r.key, r.baseUrl);
    case 'microphone-access':
      // dev:web and talk have no desktop: the browser asks itself.
      return on.shell ? on.shell.microphoneAccess() : { ok: true };
  }
}
