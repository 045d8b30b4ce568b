/**
 * What an interrupted answer's `heardText` must be, worked out from the pipeline's own events
 * (each clause's place in the raw reply, each clause's audio span on the clock) and the report's
 * `playbackStoppedMs`: every clause whose audio ended by the stop in full, plus the words of the
 * clause being played that had been reached by then (its raw characters taken as its duration, as
 * the app does). Not a test file itself.
 */
import assert from 'node:assert/strict';
import type { Clause } from '../electron/text/clauses';
import type { PipelineEvent } from '../electron/pipeline/events';
import type { TurnReport } from '../electron/pipeline/report';
import { words } from './engine-fixtures';

interface Spoken {
  clause: Clause;
  startMs: number;
  endMs: number;
}

/** The turn's clauses that were given audio, in order, with when that audio was due to play. */
function spokenClauses(turn: number, events: readonly PipelineEvent[]): Spoken[] {
  const clauses = new Map<number, Clause>();
  const spoken: Spoken[] = [];
  for (const e of events) {
    if (e.type === 'clause' && e.turn === turn) clauses.set(e.clause.index, e.clause);
    if (e.type === 'audio' && e.turn === turn) {
      const clause = clauses.get(e.clause);
      if (clause) spoken.push({ clause, startMs: e.startMs, endMs: e.endMs });
    }
  }
  return spoken;
}

/**
 * The report's assistantText is trimmed; clause offsets are into the raw reply. The leading
 * whitespace cut off is the shift that puts every clause's words at its offsets.
 */
function leadOf(text: string, spoken: Spoken[]): number {
  for (let lead = 0; lead <= 8; lead++) {
    const fits = spoken.every(({ clause: c }) => {
      const w = words(text.slice(Math.max(0, c.sourceStart - lead), c.sourceEnd - lead));
      return w.join(' ') === words(c.text).join(' ');
    });
    if (fits) return lead;
  }
  return -1;
}

/** The heard text if playback stopped at `stoppedMs`, in the trimmed reply `text` shifted by `lead`. */
function heardAt(text: string, lead: number, spoken: Spoken[], stoppedMs: number): string {
  let end = 0;
  for (const s of spoken) {
    const a = s.clause.sourceStart - lead;
    const b = s.clause.sourceEnd - lead;
    if (s.endMs <= stoppedMs) {
      end = b;
      continue;
    }
    if (s.startMs < stoppedMs) {
      // Reached `target` characters into the clause: the words that had ended by then were heard.
      const target = a + Math.floor(((stoppedMs - s.startMs) / (s.endMs - s.startMs)) * (b - a));
      for (const m of text.slice(a, b).matchAll(/\S+/g)) {
        const wordEnd = a + m.index + m[0].length;
        if (wordEnd <= target) end = Math.max(end, wordEnd);
      }
    }
    break;
  }
  return text.slice(0, end).trimEnd();
}

/**
 * Asserts `report.heardText` for a finished or interrupted answer. Exact when playback ran without
 * a pause before the stop (the audio spans are then where it really played); after a pause that
 * resumed, the spans moved, so it asserts only a prefix ending at a word within the clauses played.
 * Always: non-empty once a second of the answer had played.
 */
export function checkHeard(report: TurnReport, events: readonly PipelineEvent[], what = `turn ${report.index}`): void {
  const heard = report.heardText.trim();
  if (!report.interrupted) {
    assert.equal(heard, report.assistantText, `${what}: all of an answer that was not interrupted was heard`);
    return;
  }
  const stopped = report.bargeIn?.playbackStoppedMs;
  assert.ok(stopped !== undefined, `${what}: an interrupted answer has its barge-in times`);
  const spoken = spokenClauses(report.index, events);
  const firstAudio = spoken[0]?.startMs;
  const info = `${what}: heard ${JSON.stringify(heard)}, stopped at ${stopped}, clauses ${JSON.stringify(spoken.map((s) => [s.clause.text, Math.round(s.startMs), Math.round(s.endMs)]))}`;
  if (firstAudio !== undefined && stopped - firstAudio >= 1000) assert.notEqual(heard, '', `${info}: a second of audio played, so something was heard`);
  if (firstAudio === undefined || stopped <= firstAudio) {
    assert.equal(heard, '', `${info}: nothing played, nothing heard`);
    return;
  }
  const lead = leadOf(report.assistantText, spoken);
  assert.ok(lead >= 0, `${info}: the clauses are where the reply says (${JSON.stringify(report.assistantText)})`);
  assert.ok(report.assistantText.startsWith(heard), `${info}: a prefix of the answer`);
  const resumed = events.some((e) => e.type === 'playback' && e.action === 'resumed' && e.t > firstAudio && e.t < stopped);
  if (resumed) {
    // Ends where a word ends (or the reply does), no later than the clause being played.
    const next = report.assistantText[heard.length];
    assert.ok(next === undefined || /\s/.test(next), `${info}: cut at a word boundary`);
    const playing = spoken.filter((s) => s.startMs < stopped).at(-1)!;
    assert.ok(heard.length <= playing.clause.sourceEnd - lead, `${info}: no further than the clause being played`);
    return;
  }
  // playbackStoppedMs is rounded to 0.1 ms: either side of it is the truth.
  const expected = new Set([heardAt(report.assistantText, lead, spoken, stopped - 0.05), heardAt(report.assistantText, lead, spoken, stopped + 0.05)]);
  assert.ok(expected.has(heard), `${info}: expected ${JSON.stringify([...expected])}`);
}
