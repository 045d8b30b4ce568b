/**
 * Random and hostile contents for the files a user can edit in the data folder (settings.json,
 * timers.json, history/), for the fuzz test (not a test file). Seeded: a case number and a seed give
 * the same files every time. Each case says what it planted (an API key, timers that must survive).
 */
import { formatLogLine } from '../electron/history/log-format';
import { SETTINGS_RANGES, type NumericSettingPath } from '../electron/settings/schema';
import { TimerBook } from '../electron/timers/timer-book';
import { sampleReport } from './history-fixtures';

import { prng } from '../electron/seeded-random';

export { prng };

export interface FuzzFiles {
  /** settings.json's text, or null for none. */
  settings: string | null;
  timers: string | null;
  /** history/ file name → text. */
  history: Record<string, string>;
  /** Every API key written anywhere in these files: none may leave the key store. */
  keys: string[];
  /** Settings that must survive as written (valid input), without their key; null when the input was not valid. */
  what: string;
}

/** The numeric settings fuzzed freely; the rest (endpointing, model sizes, threads) would only keep the turn from happening. */
const FREE: NumericSettingPath[] = ['turnBudgetMs', 'stt.partialIntervalMs', 'llm.temperature', 'llm.maxTokens', 'tts.speakerId', 'tts.speed', 'bargeIn.minSpeechMs', 'bargeIn.falseInterruptionMs', 'llm.server.stallMs'];

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export class FuzzCase {
  private readonly r: () => number;

  constructor(
    seed: number,
    /** The server the settings point at (a well-behaved one: the fuzz is about files). */
    private readonly serverUrl: string,
    private readonly now: number,
  ) {
    this.r = prng(seed);
  }

  private int(n: number): number {
    return Math.floor(this.r() * n);
  }

  private pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }

  private chars(n: number, from = ALNUM): string {
    let s = '';
    for (let i = 0; i < n; i++) s += from[this.int(from.length)];
    return s;
  }

  /** Text no file should hold: control characters, lone surrogates, quotes, invalid JSON. */
  private garbage(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += String.fromCharCode(this.pick([0, 9, 10, 34, 92, 123, 125, 0xd800, 0xfeff, 65 + this.int(58), this.int(0x3000)]));
    return s;
  }

  private deep(depth: number): string {
    return `${'{"a":['.repeat(depth)}1${']}'.repeat(depth)}`;
  }

  key(): string {
    return `sk-fz${this.chars(20 + this.int(60))}`;
  }

  build(): FuzzFiles {
    const keys: string[] = [];
    const settings = this.settings(keys);
    return { settings: settings.text, timers: this.timers(), history: this.history(), keys, what: settings.what };
  }

  private settings(keys: string[]): { text: string | null; what: string } {
    const server: Record<string, unknown> = { baseUrl: this.serverUrl, model: 'm' };
    if (this.r() < 0.5) {
      const k = this.key();
      keys.push(k);
      server.apiKey = k;
    }
    const valid: Record<string, unknown> = { llm: { provider: this.r() < 0.5 ? 'openai-compatible' : 'local', server } };
    for (const path of FREE) {
      if (this.r() < 0.5) continue;
      const range = SETTINGS_RANGES[path];
      let v = range.min + this.r() * (range.max - range.min);
      v = range.integer ? Math.round(v) : Math.round(v / range.step) * range.step;
      set(valid, path, Math.min(range.max, Math.max(range.min, v)));
    }
    const text = JSON.stringify(valid, null, this.int(3));
    const kind = this.int(12);
    switch (kind) {
      case 0:
        return { text: null, what: 'no settings file' };
      case 1: {
        const path = this.pick(FREE);
        set(valid, path, this.pick([-1, 1e308, 'ten', null, [], {}, Number.NaN]));
        return { text: JSON.stringify(valid), what: `settings with ${path} invalid` };
      }
      case 2:
        return { text: text.slice(0, this.int(text.length)), what: 'settings cut short' };
      case 3:
        return { text: this.garbage(1 + this.int(400)), what: 'settings of garbage' };
      case 4:
        return { text: `{"llm": ${this.deep(5000 + this.int(20000))}}`, what: 'settings nested deep' };
      case 5:
        return { text: `{"pad": "${'x'.repeat(this.r() < 0.2 ? 1_100_000 : 50_000)}", "llm": ${JSON.stringify(valid.llm)}}`, what: 'settings with a long field' };
      case 6:
        return { text: this.pick(['', '\ufeff', 'null', '[]', '42', '"text"', '{"__proto__": {"polluted": true}}', '{"constructor": {"prototype": {"x": 1}}}']), what: 'settings of the wrong shape' };
      case 7: {
        // A key no header can carry: refused, and must not leak from the backup either.
        const bad = `${this.key()}${this.pick(['\n', '\u0000', 'ü', ' x'])}${this.chars(10)}`;
        keys.push(bad.trim());
        return { text: JSON.stringify({ llm: { server: { ...server, apiKey: bad } } }), what: 'settings with an unusable key' };
      }
      case 8:
        return { text: `\ufeff${text}`, what: 'valid settings with a BOM' };
      default:
        return { text, what: 'valid settings' };
    }
  }

  private timers(): string | null {
    const kind = this.int(10);
    if (kind === 0) return null;
    const start = this.r() < 0.2 ? Number.MAX_SAFE_INTEGER - this.int(3) : 1 + this.int(1000);
    const book = TimerBook.fromJSON({ version: 1, nextId: start, timers: [] });
    for (let i = 0, n = this.int(8); i < n; i++) {
      const name = this.r() < 0.5 ? null : this.chars(1 + this.int(12), 'abc de');
      // Some fell due while the app was closed, some are due in hours.
      const setAt = this.now - this.int(3_600_000);
      if (this.r() < 0.7) book.startTimer(1000 + this.int(7_200_000), name, setAt);
      else book.setAlarm(this.now + 60_000 + this.int(86_400_000), setAt, name);
    }
    if (kind === 1) {
      // More than the app keeps (100), written by hand: half overdue, half due later.
      const timers = Array.from({ length: 101 + this.int(400) }, (_, i) => {
        const due = this.now + (this.r() < 0.5 ? -1 : 1) * (60_000 + this.int(86_400_000));
        return { id: String(i + 1), kind: 'timer', name: null, durationMs: 1000, setAtMs: due - 1000, dueAtMs: due, firedAtMs: null, cancelledAtMs: null, stoppedAtMs: null };
      });
      return JSON.stringify({ version: 1, nextId: timers.length + 1, timers });
    }
    const text = JSON.stringify(book);
    switch (kind) {
      case 2:
        return text.slice(0, this.int(text.length));
      case 3:
        return this.garbage(1 + this.int(300));
      case 4:
        return text.replace(/"dueAtMs":\d+/, `"dueAtMs":${this.pick(['-1e308', '1e308', '"soon"', 'null', '-1'])}`);
      case 5:
        return `{"version":1,"nextId":1,"timers":${this.deep(3000 + this.int(20000))}}`;
      case 6:
        return text.replace(/"name":null/, `"name":"${'n'.repeat(101 + this.int(10000))}"`);
      default:
        return text;
    }
  }

  private history(): Record<string, string> {
    const files: Record<string, string> = {};
    const sessions = this.int(3);
    for (let s = 0; s < sessions; s++) {
      const id = `2026-11-${String(10 + this.int(18)).padStart(2, '0')}T08-00-00Z-${this.chars(4, '0123456789abcdef')}`;
      const lines: string[] = [];
      for (let i = 0, n = 1 + this.int(6); i < n; i++) {
        const line = formatLogLine(sampleReport({ index: i, userText: this.chars(this.int(40), 'abc de') }), { app: '0.1.0', settingsHash: '0123456789ab', models: {}, texts: true, session: id, at: new Date(this.now).toISOString() });
        const damage = this.int(8);
        if (damage === 0) lines.push(line.replace('"report":{', `"report":{"extra":${this.deep(100 + this.int(20000))},`));
        else if (damage === 1) lines.push(line.replace('"report":{', `"report":{"extra":"${'x'.repeat(300_000)}",`));
        else if (damage === 2) lines.push(this.garbage(1 + this.int(200)));
        else if (damage === 3) lines.push(line.slice(0, this.int(line.length)));
        else lines.push(line);
      }
      const text = lines.join('\n');
      files[`session-${id}.jsonl`] = this.r() < 0.3 ? text : `${text}\n`;
    }
    if (this.r() < 0.2) files['session-not-a-session.jsonl'] = this.garbage(50);
    return files;
  }
}

function set(o: Record<string, unknown>, path: string, v: unknown): void {
  const parts = path.split('.');
  let at = o;
  for (const p of parts.slice(0, -1)) at = (at[p] ??= {}) as Record<string, unknown>;
  at[parts.at(-1)!] = v;
}
