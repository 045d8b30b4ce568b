/**
 * Carrying out the barge-in policy's decisions on the output and the answers: pause, resume, duck,
 * a backchannel noted, a turn continued, an answer interrupted. The policy decides; this acts.
 */
import type { PipelineContext } from '../context';
import { round } from '../report';
import type { Notices } from '../skills/notices';
import type { Answers } from './answers';
import type { BargeInDecision } from './barge-in';

/** The answer's volume while speech over it is judged: about 12 dB down, still plainly there. */
const DUCK_GAIN = 0.25;

/** What the decisions act on. */
export interface PlaybackParts {
  output: PipelineContext['output'];
  events: PipelineContext['events'];
  answers: Answers;
  notices: Notices;
}

/** `speechStartMs`: where the speech (or key press) that led to these decisions began. */
export function applyDecisions(decisions: readonly BargeInDecision[], speechStartMs: number | null, on: PlaybackParts): void {
  const { output, events, answers } = on;
  for (const d of decisions) {
    switch (d.type) {
      case 'pause':
        if (d.restoreVolume) output.duck(d.atMs, 1);
        output.pause(d.atMs);
        events.emit({ type: 'playback', t: d.atMs, action: 'paused' });
        break;
      case 'resume':
        output.resume(d.atMs);
        events.emit({ type: 'playback', t: d.atMs, action: 'resumed' });
        break;
      case 'interrupt':
        interruptAnswers(d.atMs, d.pausedAtMs, d.speechStartMs ?? speechStartMs, on);
        break;
      case 'duck':
        output.duck(d.atMs, DUCK_GAIN);
        events.emit({ type: 'playback', t: d.atMs, action: 'ducked' });
        break;
      case 'unduck':
        output.duck(d.atMs, 1);
        events.emit({ type: 'playback', t: d.atMs, action: 'restored' });
        break;
      case 'backchannel': {
        const turn = answers.noteBackchannel({ atMs: round(d.speechStartMs), text: d.text, ...(d.evidence ? { evidence: d.evidence } : {}) }, output.position(d.speechStartMs));
        events.emit({ type: 'backchannel', t: d.atMs, turn, atMs: round(d.speechStartMs), text: d.text, speechTurn: d.speechTurn });
        break;
      }
      case 'continue-turn':
        answers.dropDraft(false);
        output.stop(d.atMs);
        answers.continueTurn(d.atMs);
        break;
    }
  }
}

/**
 * The user spoke over an answer: playback stops (it already paused at `pausedAtMs` if the policy
 * held it), the answer is cancelled, and history keeps what was heard.
 */
export function interruptAnswers(atMs: number, pausedAtMs: number, speechStartMs: number | null, on: PlaybackParts): void {
  const { output, answers, notices } = on;
  answers.dropDraft(false);
  const playedTo = output.position(atMs);
  const stoppedMs = output.paused ? pausedAtMs : atMs;
  output.stop(atMs);
  notices.cancel(playedTo);
  answers.interrupt(playedTo, stoppedMs, { detectedMs: round(atMs), playbackStoppedMs: round(stoppedMs), speechStartMs: speechStartMs === null ? null : round(speechStartMs) });
}
