/**
 * The window's commands (ipc-contract.ts `Command`, already validated) carried out on the pipeline
 * and the parts of the app around it. Fire and forget: a command has no answer.
 */
import { messageOf } from '../errors';
import type { AppStatus, Command } from '../ipc-contract';
import type { VoicePipeline } from '../pipeline/voice-pipeline';
import type { RendererOutput } from '../renderer-output';
import type { TimerKeeper } from '../timers/timer-keeper';
import type { MemoryKeeper } from './memory-keeper';
import type { ModelSetup } from './model-setup';

/** What a command acts on. */
export interface CommandParts {
  /** Null between pipelines (a reload). */
  pipeline: VoicePipeline | null;
  output: RendererOutput;
  setup: ModelSetup;
  timers: TimerKeeper;
  memory: MemoryKeeper;
  listening(): boolean;
  setStatus(patch: Partial<AppStatus>): void;
  notice(level: 'info' | 'error', message: string): void;
}

export function runCommand(c: Command, on: CommandParts): void {
  const p = on.pipeline;
  switch (c.type) {
    case 'set-listening':
      if (!c.listening) p?.endTurnNow('input-ended');
      on.setStatus({ listening: c.listening });
      break;
    case 'push-to-talk':
      p?.pushToTalk(c.down);
      break;
    case 'interrupt':
      p?.stopSpeaking();
      break;
    case 'reset-conversation':
      p?.resetConversation()
        .then(() => on.notice('info', 'Started a new conversation.'))
        .catch((err: unknown) => on.notice('error', messageOf(err, 'Could not reset the conversation')));
      break;
    case 'playback-progress':
      on.output.reportProgress(c.position);
      break;
    case 'download-models':
      void on.setup.download();
      break;
    case 'cancel-download':
      on.setup.cancel();
      break;
    case 'cancel-timer':
      if (p) p.cancelTimer(c.id);
      // Between pipelines (a reload): on the book itself.
      else on.timers.cancel(c.id);
      break;
    case 'activate':
      // An activation is a request to talk: a muted microphone is turned back on for it.
      if (!on.listening()) on.setStatus({ listening: true });
      p?.activate();
      break;
    case 'confirm-tool':
      p?.decideConfirmation(c.id, c.run);
      break;
    case 'stop-ringing':
      if (p) p.stopRinging();
      else on.timers.stopRinging();
      break;
    case 'forget-fact':
      on.memory.forget(c.id);
      break;
    case 'clear-memory':
      void on.memory.clear();
      break;
    case 'microphone-settings':
      // Kept for the Models panel and logged with each turn: whether the browser really left the
      // audio front end (echo cancellation, gain) to the app.
      on.setStatus({ microphone: c.settings });
      break;
  }
}
