/**
 * A turn's latencies and barge-in in words, for a console (`talk`'s turn summary): the same figures
 * every view shows (turn-figures.ts), no negative duration, a prepared answer said as such, and a
 * barge-in told in the order it happened. Pure.
 */
import type { TurnReport } from '../pipeline/report';
import { formatMs, turnFigures } from './turn-figures';

const sec = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/**
 * "latency:   endpoint 535 ms | stt 16 ms | llm first token 710 ms | tts first audio 5 ms |
 * voice to voice 973 ms | prepared during the pause, 396 ms ahead of the end of turn".
 * A local command shows "command time.now 42 ms" in place of the LLM.
 */
export function latencyLine(r: TurnReport): string {
  const f = turnFigures(r);
  const parts = [`endpoint ${formatMs(f.endpointMs)}`, `stt ${formatMs(f.sttMs)}`];
  if (r.command) parts.push(`command ${r.command.name} ${formatMs(f.commandMs)}`);
  else parts.push(`llm first token ${formatMs(f.llmFirstTokenMs)}`);
  // Audio ready well before it could play (a prepared answer waiting for the end of turn) is not synthesis time.
  const waited = f.audioWaitMs !== null && f.audioWaitMs >= 1 ? `, then waited ${formatMs(f.audioWaitMs)}` : '';
  parts.push(`tts first audio ${formatMs(f.ttsFirstAudioMs)}${waited}`, `voice to voice ${formatMs(f.voiceToVoiceMs)}`);
  if (f.preparedAheadMs !== null) parts.push(`prepared during the pause, ${formatMs(f.preparedAheadMs)} ahead of the end of turn`);
  return `latency:   ${parts.join(' | ')}`;
}

/**
 * "barge-in:  speech at 3.72 s, paused 3.77 s, confirmed 4.03 s" (times on the input's clock, in
 * the order they happened); "stopped" where playback was cut when the interruption was confirmed.
 * Null for a turn that was not interrupted.
 */
export function bargeInLine(r: TurnReport): string | null {
  const b = turnFigures(r).bargeIn;
  if (!b) return null;
  const events: [number, string][] = [];
  if (b.speechAtMs !== null) events.push([b.speechAtMs, 'speech at']);
  if (b.pausedAtMs !== null) events.push([b.pausedAtMs, 'paused']);
  events.push([b.confirmedAtMs, b.pausedAtMs === null ? 'stopped' : 'confirmed']);
  events.sort((a, z) => a[0] - z[0]);
  return `barge-in:  ${events.map(([at, what], i) => `${i === 0 && what !== 'speech at' ? `${what} at` : what} ${sec(at)}`).join(', ')}`;
}
