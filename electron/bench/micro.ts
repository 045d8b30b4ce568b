/**
 * Small figures `npm run bench` prints under its stage table: how long matching a local command,
 * resampling a minute of 48 kHz audio and one end-of-turn check take on this machine. Speed is
 * measured here, where it is printed and compared, not asserted in tests that run on a busy machine.
 */
import { resample } from '../audio/resample';
import { matchCommand } from '../commands/match';
import { measureTurnCost, type TurnDetector } from '../engines/turn-detector';
import { distribution, type Distribution } from '../stats';

/** A figure's n, median, p95 and max; null values when nothing was measured. */
type Figure = Pick<Distribution, 'n' | 'median' | 'p95' | 'max'>;

/** What people say: commands of every kind, and sentences that must fall through to the model. */
const UTTERANCES = [
  'set a timer for ten minutes',
  'a pasta timer for 20 minutes',
  'how much time is left',
  'set an alarm for seven o\'clock',
  'wake me up at 6:30 am',
  'what time is it',
  'what day is it today',
  'never mind',
  'cancel all alarms',
  'say that again',
  'tell me a long story about a brave knight and a dragon',
  'what is the weather like today',
];

export interface MicroFigures {
  /** One utterance through every command template (microseconds: it takes hundredths of a ms). */
  commandMatchUs: Figure;
  /** 60 s of 48 kHz mono to 16 kHz (ms). */
  resample60sMs: Figure;
  /** Features and inference of one end-of-turn check on 8 s of audio (ms); null without the model. */
  turnCheckMs: Figure | null;
}

export async function microFigures(turn: TurnDetector | null): Promise<MicroFigures> {
  const matches: number[] = [];
  for (let round = 0; round < 20; round++) {
    for (const text of UTTERANCES) {
      const t0 = performance.now();
      matchCommand(text);
      matches.push((performance.now() - t0) * 1000);
    }
  }
  const minute = new Float32Array(48000 * 60);
  for (let i = 0; i < minute.length; i++) minute[i] = 0.5 * Math.sin((2 * Math.PI * 440 * i) / 48000);
  const resamples: number[] = [];
  for (let round = 0; round < 3; round++) {
    const t0 = performance.now();
    resample(minute, 48000, 16000);
    resamples.push(performance.now() - t0);
  }
  const turnCheckMs = turn ? (await measureTurnCost(turn, { runs: 30 })).totalMs : null;
  return { commandMatchUs: distribution(matches), resample60sMs: distribution(resamples), turnCheckMs };
}

/** The figures as rows in the stage table's columns (n, median, p95, max). */
export function microTable(f: MicroFigures): string {
  const rows: [string, Figure | null, number][] = [
    ['command match (per utterance, µs)', f.commandMatchUs, 1],
    ['resample 60 s 48 -> 16 kHz', f.resample60sMs, 0],
    ['end-of-turn check (8 s audio)', f.turnCheckMs, 1],
  ];
  const w = Math.max(...rows.map(([n]) => n.length));
  const fmt = (v: number | null, d: number) => (v === null ? '—' : v.toFixed(d));
  const head = `${'small figures (ms)'.padEnd(w)}  ${'n'.padStart(4)}  ${'median'.padStart(7)}  ${'p95'.padStart(7)}  ${'max'.padStart(7)}`;
  return [head, ...rows
    .map(([name, d, digits]) =>
      d === null
        ? `${name.padEnd(w)}  no end-of-turn model`
        : `${name.padEnd(w)}  ${String(d.n).padStart(4)}  ${fmt(d.median, digits).padStart(7)}  ${fmt(d.p95, digits).padStart(7)}  ${fmt(d.max, digits).padStart(7)}`,
    )]
    .join('\n') + '\n';
}
