/**
 * What `talk` prints while it runs: each turn as soon as its answer starts (its words so far and its
 * latencies), then a line when the answer finishes or is stopped. In a terminal the recognizer's
 * interim words rewrite one line; piped, each is a line of its own, as a log reads best.
 */
import type { PipelineEvent } from '../pipeline/events';
import type { TurnReport } from '../pipeline/report';
import { bargeInLine as bargeInFigures, latencyLine as figuresLine } from '../report/turn-lines';

export const sec = (t: number) => `${(t / 1000).toFixed(2)} s`;

/** The console shows this many lines of an answer; the report keeps all of it. */
export const ANSWER_LINES = 3;
/** Where an answer's text starts on its line ("  assistant: "). */
const INDENT = 13;
/** Line width when the output is not a terminal (a log file, a pipe). */
const PIPE_WIDTH = 100;

/** `text` wrapped at spaces into lines of at most `width` characters (a longer word is cut). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      for (let w = word; w; ) {
        const room = line ? width - line.length - 1 : width;
        if (w.length <= room) {
          line = line ? `${line} ${w}` : w;
          w = '';
        } else if (line) {
          lines.push(line);
          line = '';
        } else {
          lines.push(w.slice(0, width));
          w = w.slice(width);
        }
      }
    }
    if (line) lines.push(line);
  }
  return lines;
}

/** At most `max` lines of `text`, the later ones indented under the first, "…" when some were left out. */
export function capped(text: string, width: number, max = ANSWER_LINES): string {
  const lines = wrap(text, Math.max(20, width - INDENT));
  const shown = lines.slice(0, max);
  if (lines.length > max) shown[max - 1] += ' …';
  return shown.join(`\n${' '.repeat(INDENT)}`);
}

function head(r: TurnReport): string[] {
  const t = r.timings;
  return [
    `turn ${r.index}  (${(t.speechStartMs / 1000).toFixed(2)}-${(t.speechEndMs / 1000).toFixed(2)} s, ` +
      `${r.startedBy === 'speech' ? '' : `started by ${r.startedBy}, `}ended by ${r.endReason}` +
      `${r.mergedContinuation ? ', merged continuation' : ''}${r.holdingPhrase ? ', holding phrase' : ''}` +
      `${r.inputGainDb >= 1 ? `, input raised ${Math.round(r.inputGainDb)} dB` : ''})`,
    `  user:      ${r.userText}`,
    ...(r.command ? [`  command:   ${r.command.name} ${JSON.stringify(r.command.slots)} (no language model)`] : []),
    ...(r.tools?.length ? [`  tools:     ${r.tools.map((u) => `${u.name} ${Math.round(u.ms)} ms${u.ok ? '' : ` (failed: ${u.error ?? '?'})`}`).join(', ')}`] : []),
  ];
}

/** The same figures every view shows (report/turn-figures.ts), indented for the turn's block. */
export function latencyLine(r: TurnReport): string {
  return `  ${figuresLine(r)}`;
}

function bargeInLine(r: TurnReport): string[] {
  const line = bargeInFigures(r);
  return line ? [`  ${line}`] : [];
}

function heardLine(r: TurnReport, width: number): string[] {
  return r.interrupted ? [`  heard:     ${capped(r.heardText, width)} [interrupted]`] : [];
}

/** A whole turn at once: one whose answer never played, or in a summary. */
export function formatTurn(r: TurnReport, width = PIPE_WIDTH): string {
  return [
    ...head(r),
    `  assistant: ${capped(r.assistantText, width)}`,
    ...heardLine(r, width),
    ...bargeInLine(r),
    latencyLine(r),
    ...(r.error ? [`  error:     ${r.error}`] : []),
  ].join('\n');
}

/** What each change of playback says in the log. */
const PLAYBACK_LINES = {
  paused: '‖ playback paused: the user may be talking',
  resumed: '▶ playback resumed',
  ducked: '↓ answer lowered: the user may be talking',
  restored: '↑ answer back to full volume',
} as const;

/** What each wake-phrase decision says in the log. */
const WAKE_LINES = {
  heard: (text: string) => `◉ wake phrase: "${text}" is a request`,
  listening: () => '◉ wake phrase alone: listening for the request',
  ignored: (text: string) => `· no wake phrase: "${text}" is not for the assistant`,
  closed: () => '○ no request followed the wake phrase',
} as const;

/** What one-shot listening did, as a line of the console log. */
function oneShotLine(e: Extract<PipelineEvent, { type: 'one-shot' }>): string | null {
  const at = `(${sec(e.t)})`;
  if (e.reason === 'activation') return `  ◉ activation: ${e.state === 'armed' ? 'listening for one turn' : 'listening stopped'} ${at}`;
  if (e.state !== 'idle' || e.reason === 'speech') return null;
  const why = { 'end-of-turn': 'the turn ended', 'no-speech': 'no speech came', 'input-ended': 'the input ended' }[e.reason];
  return `  ○ listening stopped: ${why} ${at}`;
}

/** How an answer that started ended: stopped while heard, dropped before any of it played, or played out. */
function howItEnded(r: TurnReport, at: string): string {
  if (r.interrupted) return `the answer was stopped at ${at}`;
  // Stopped before its first audio played (a stop or a key press right then): nothing of it was heard.
  if (r.assistantText && !r.heardText) return 'the answer was dropped before any of it played';
  return `the answer played to the end (${at})`;
}

/** Where the lines go: process.stdout, or a stand-in in tests. */
export interface ConsoleOut {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/** Erases the terminal line the cursor is on. */
const CLEAR_LINE = '\r\x1b[2K';

export class TalkConsole {
  /** A terminal line of interim words is showing, not yet ended by a newline. */
  private interimOpen = false;
  /** What was printed when each turn's answer started (its latency line and answer line), by turn. */
  private readonly started = new Map<number, { latency: string; answer: string }>();
  /** Set once the run is being stopped (Ctrl+C): stopped answers say so, not "barge-in". */
  stoppedBy: string | null = null;

  constructor(
    private readonly out: ConsoleOut,
    private readonly quiet = false,
    private readonly err: (line: string) => void = (line) => console.error(line),
  ) {}

  private get tty(): boolean {
    return this.out.isTTY === true;
  }

  private get width(): number {
    return this.tty && this.out.columns ? this.out.columns : PIPE_WIDTH;
  }

  /** A line of the log (an open interim line is ended first, so it stays as the last words heard). */
  line(text: string): void {
    if (this.quiet) return;
    this.endInterim();
    this.out.write(`${text}\n`);
  }

  /** A warning, on stderr (printed even when quiet), below the interim line rather than on it. */
  warn(text: string): void {
    this.endInterim();
    this.err(text);
  }

  /** Ends the interim line, if one is open: before the process exits or writes elsewhere. */
  endInterim(): void {
    if (!this.interimOpen) return;
    this.interimOpen = false;
    this.out.write('\n');
  }

  private interim(text: string): void {
    if (this.quiet) return;
    if (!this.tty) {
      this.out.write(`${text}\n`);
      return;
    }
    // Wider than the terminal, it would wrap and the next \r would rewrite only its last row: keep the newest words.
    const room = this.width - 1;
    const shown = text.length > room ? `…${text.slice(text.length - room + 1)}` : text;
    this.out.write(`${CLEAR_LINE}${shown}`);
    this.interimOpen = true;
  }

  event(e: PipelineEvent): void {
    switch (e.type) {
      case 'partial':
        return this.interim(`  … ${e.text} (${sec(e.t)})`);
      case 'answer-start':
        return this.answerStarted(e.report);
      case 'turn':
        return this.turnDone(e.report);
      case 'notice':
      case 'error':
        return this.line(`  ! ${e.message}`);
      case 'playback':
        return this.line(`  ${PLAYBACK_LINES[e.action]} (${sec(e.t)})`);
      case 'wake-phrase':
        return this.line(`  ${WAKE_LINES[e.state](e.text)} (${sec(e.t)})`);
      case 'backchannel':
        return this.line(`  ✓ acknowledgement "${e.text}": the answer goes on (${sec(e.t)})`);
      case 'interrupted':
        return this.line(this.stoppedBy ? `  ■ answer ${e.turn} stopped by ${this.stoppedBy} (${sec(e.t)})` : `  ✂ barge-in: answer ${e.turn} stopped (${sec(e.t)})`);
      case 'merged':
        // Its answer is dropped and never reported: the next turn carries its words.
        this.started.delete(e.turn);
        return this.line(`  + the user went on before hearing answer ${e.turn}: merged into the next turn (${sec(e.t)})`);
      case 'holding-phrase':
        return this.line(`  … holding phrase "${e.text}" (${sec(e.t)})`);
      case 'confirmation':
        // The question itself is in the answer's text; this says what waits, and when it closes.
        return this.line(e.pending ? `  ? asks first: ${e.pending.action} (say yes or no; ${sec(e.t)})` : `  ? the question about a tool is closed (${sec(e.t)})`);
      case 'timer':
        return this.line(`  ⏰ ${e.kind} rings: "${e.text}" (${sec(e.t)})`);
      case 'one-shot': {
        const line = oneShotLine(e);
        if (line) this.line(line);
        return;
      }
    }
  }

  /** The answer's first audio is queued: the turn so far and its latencies, now rather than when it has played. */
  private answerStarted(r: TurnReport): void {
    const latency = latencyLine(r);
    // A command's answer is whole from the start; the language model's goes on being written.
    const more = r.command || r.assistantText.endsWith('…') ? '' : ' …';
    const answer = `  assistant: ${capped(r.assistantText, this.width)}${more}`;
    this.started.set(r.index, { latency, answer });
    this.line([...head(r), answer, latency].join('\n'));
  }

  /** The turn is over: the whole answer (as much as the console shows), how it ended, and any figure that changed since it started. */
  private turnDone(r: TurnReport): void {
    const early = this.started.get(r.index);
    if (!early) {
      this.line(formatTurn(r, this.width));
      return;
    }
    this.started.delete(r.index);
    const latency = latencyLine(r);
    const at = sec(r.timings.lastAudioMs ?? 0);
    this.line(
      [
        `turn ${r.index} finished: ${howItEnded(r, at)}`,
        ...[`  assistant: ${capped(r.assistantText, this.width)}`].filter((a) => a !== early.answer),
        ...heardLine(r, this.width),
        ...bargeInLine(r),
        // Pauses after the answer started can move its first audio: the figures that stand are the final ones.
        ...(latency !== early.latency ? [latency] : []),
        ...(r.error ? [`  error:     ${r.error}`] : []),
      ].join('\n'),
    );
  }
}
