/** The history summary as `npm run log -- summary` prints it. Pure. */
import { STAGE_ROWS } from '../bench/stages';
import type { Distribution } from '../stats';
import type { LogSummary, PeriodFigures } from './log-format';

const num = (v: number | null) => (v === null ? '—' : String(Math.round(v)));
const pct = (x: number) => `${Math.round(x * 100)}%`;
const p50p95 = (d: Distribution, unit = '') => (d.n === 0 ? '—' : `${num(d.median)}/${num(d.p95)}${unit}`);

function stageTable(s: LogSummary): string[] {
  const w = Math.max(...STAGE_ROWS.map(([label]) => label.length));
  const lines = [`${'stage (ms)'.padEnd(w)}  ${'n'.padStart(5)}  ${'p50'.padStart(6)}  ${'p95'.padStart(6)}`];
  for (const [label, pick] of STAGE_ROWS) {
    const d = pick(s.stages);
    lines.push(`${label.padEnd(w)}  ${String(d.n).padStart(5)}  ${num(d.median).padStart(6)}  ${num(d.p95).padStart(6)}`);
  }
  return lines;
}

/** One span's key figures on one line (p50/p95 in ms). */
function periodLine(p: PeriodFigures): string {
  return (
    `${p.turns} turn${p.turns === 1 ? '' : 's'}; voice to voice ${p50p95(p.voiceToVoiceMs, ' ms')}, endpoint ${p50p95(p.endpointMs, ' ms')}, ` +
    `stt ${p50p95(p.sttMs, ' ms')}, llm first token ${p50p95(p.llmTtftMs, ' ms')}, tts first audio ${p50p95(p.ttsFirstAudioMs, ' ms')}; interrupted ${pct(p.interruption)}`
  );
}

export function formatSummary(s: LogSummary): string {
  if (s.turns === 0) return 'No turns logged.';
  const a = s.answerLength;
  const lines = [
    `${s.turns} turn${s.turns === 1 ? '' : 's'} in ${s.sessions} session${s.sessions === 1 ? '' : 's'}, ${s.from} to ${s.to}`,
    '',
    ...stageTable(s),
    '',
    `interrupted ${pct(s.rates.interruption)} | holding phrase ${pct(s.rates.holdingPhrase)} | empty transcript ${pct(s.rates.emptyTranscript)} | local command ${pct(s.rates.localCommand)}`,
    a.words.n === 0
      ? 'answer length: — (no answer was logged with its text)'
      : `answer length (p50/p95 of ${a.words.n}): ${p50p95(a.words)} words, ${p50p95(a.chars)} characters`,
  ];
  if (s.tools.length > 0) {
    lines.push('', 'tool calls (ms p50/p95):');
    for (const t of s.tools) lines.push(`  ${t.name} (${t.server}): ${t.calls} call${t.calls === 1 ? '' : 's'}${t.failed ? `, ${t.failed} failed` : ''}, ${p50p95(t.ms)}`);
  }
  if (s.changes.length === 0) lines.push('', 'no model, settings or app changes');
  for (const c of s.changes) {
    lines.push('', `change at ${c.at} (turn ${c.turn}, session ${c.session}): ${c.what.join('; ')}`);
    lines.push(`  before: ${periodLine(c.before)}`, `  after:  ${periodLine(c.after)}`);
  }
  return lines.join('\n');
}
