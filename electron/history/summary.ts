/**
 * What the conversation history says about how turns went: per-stage percentiles (keyed as
 * `npm run bench`), how often answers were interrupted or needed a holding phrase, and where a model,
 * the settings, the app or the microphone's processing changed, with the figures before and after. Pure.
 */
import { stageDistributions, turnStages } from '../bench/stages';
import { distribution } from '../stats';
import type { LoggedMicrophone } from '../microphone-settings';
import { LOGGED_MODEL_KINDS, type LogChange, type LoggedTurn, type LogSummary, type PeriodFigures } from './log-format';

/** Fraction of `turns` for which `test` holds; 0 for none. */
function rate(turns: readonly LoggedTurn[], test: (t: LoggedTurn) => boolean): number {
  return turns.length === 0 ? 0 : turns.filter(test).length / turns.length;
}

/**
 * A turn's stage values, from its report as every view computes them: the `stages` stored on the
 * line are what the code that wrote it computed (older lines: other rules), so they are not read.
 */
const stagesOf = (t: LoggedTurn) => turnStages(t.report);

function period(turns: readonly LoggedTurn[]): PeriodFigures {
  const stages = turns.map(stagesOf);
  const of = (pick: (s: (typeof stages)[number]) => number | null) => distribution(stages.map(pick));
  return {
    turns: turns.length,
    voiceToVoiceMs: of((s) => s.voiceToVoiceMs),
    endpointMs: of((s) => s.endpointMs),
    sttMs: of((s) => s.sttMs),
    llmTtftMs: of((s) => s.llmTtftMs),
    ttsFirstAudioMs: of((s) => s.ttsFirstAudioMs),
    interruption: rate(turns, (t) => t.report.interrupted),
  };
}

/** What differs between two consecutive turns' setup, one entry per thing that changed. */
function differences(a: LoggedTurn, b: LoggedTurn): string[] {
  const what: string[] = [];
  for (const kind of LOGGED_MODEL_KINDS) {
    const from = a.models[kind];
    const to = b.models[kind];
    if (from !== to) what.push(`${kind}: ${from ?? 'none'} → ${to ?? 'none'}`);
  }
  if (a.settingsHash !== b.settingsHash) what.push(`settings ${a.settingsHash} → ${b.settingsHash}`);
  if (a.app !== b.app) what.push(`app ${a.app} → ${b.app}`);
  const mic = microphoneChange(a.microphone, b.microphone);
  if (mic) what.push(mic);
  return what;
}

const MIC_FIELDS: readonly (keyof LoggedMicrophone)[] = ['echoCancellation', 'autoGainControl', 'noiseSuppression', 'sampleRate', 'channelCount'];

/**
 * What the browser applied to the microphone differently, e.g. "microphone echoCancellation true → false":
 * its figures before and after are how one would see whether the browser's processing helps. Only
 * between turns that both have it (older lines and `talk --log` have none).
 */
function microphoneChange(a: LoggedMicrophone | undefined, b: LoggedMicrophone | undefined): string | null {
  if (!a || !b) return null;
  const changed = MIC_FIELDS.filter((k) => a[k] !== b[k]).map((k) => `${k} ${String(a[k])} → ${String(b[k])}`);
  return changed.length > 0 ? `microphone ${changed.join(', ')}` : null;
}

function changes(turns: readonly LoggedTurn[]): LogChange[] {
  const at: { turn: number; what: string[] }[] = [];
  for (let i = 1; i < turns.length; i++) {
    const what = differences(turns[i - 1]!, turns[i]!);
    if (what.length > 0) at.push({ turn: i, what });
  }
  return at.map((c, k) => {
    const start = k === 0 ? 0 : at[k - 1]!.turn;
    const end = k + 1 < at.length ? at[k + 1]!.turn : turns.length;
    const first = turns[c.turn]!;
    return { at: first.at, turn: c.turn, session: first.session, what: c.what, before: period(turns.slice(start, c.turn)), after: period(turns.slice(c.turn, end)) };
  });
}

const wordCount = (text: string) => text.split(/\s+/).filter((w) => w !== '').length;

/** Summarizes turns in log order (oldest first); with `since`, only the turns that ended at or after it. */
/** Every tool call in the turns, grouped by tool. */
function toolFigures(turns: readonly LoggedTurn[]): LogSummary['tools'] {
  const by = new Map<string, { name: string; server: string; ms: number[]; failed: number }>();
  for (const t of turns) {
    // A hand-edited history may hold anything there: only well-formed entries count.
    for (const use of Array.isArray(t.report.tools) ? t.report.tools : []) {
      if (typeof use?.name !== 'string' || typeof use.server !== 'string' || !Number.isFinite(use.ms) || typeof use.ok !== 'boolean') continue;
      const key = `${use.server}\u0000${use.name}`;
      const entry = by.get(key) ?? { name: use.name, server: use.server, ms: [], failed: 0 };
      entry.ms.push(use.ms);
      if (!use.ok) entry.failed++;
      by.set(key, entry);
    }
  }
  return [...by.values()].map((e) => ({ name: e.name, server: e.server, calls: e.ms.length, failed: e.failed, ms: distribution(e.ms) })).sort((a, b) => b.calls - a.calls || a.name.localeCompare(b.name));
}

export function summarize(all: readonly LoggedTurn[], opts: { since?: Date } = {}): LogSummary {
  const since = opts.since?.getTime();
  const turns = since === undefined ? all : all.filter((t) => Date.parse(t.at) >= since);
  const withTexts = turns.filter((t) => t.texts);
  const answers = withTexts.map((t) => t.report.assistantText.trim()).filter((a) => a !== '');
  return {
    turns: turns.length,
    sessions: new Set(turns.map((t) => t.session)).size,
    from: turns[0]?.at ?? null,
    to: turns.at(-1)?.at ?? null,
    stages: stageDistributions(turns.map(stagesOf)),
    rates: {
      interruption: rate(turns, (t) => t.report.interrupted),
      holdingPhrase: rate(turns, (t) => t.report.holdingPhrase),
      // Nothing but punctuation or noise marks counts as empty too.
      emptyTranscript: rate(withTexts, (t) => !/[\p{L}\p{N}]/u.test(t.report.userText)),
      localCommand: rate(turns, (t) => t.report.command !== null),
    },
    answerLength: { words: distribution(answers.map(wordCount)), chars: distribution(answers.map((a) => a.length)) },
    tools: toolFigures(turns),
    changes: changes(turns),
  };
}
