/** The window's details (issue 25): pure helpers behind the words the window shows. */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { acceleratorFromLabel, parseAccelerator } from '../electron/settings/accelerator';
import type { LoggedTurn } from '../electron/history/log-format';
import { formatTimeRange, TEXT_NOT_LOGGED } from '../renderer/model/history';
import { entriesFromHistory, loadCurrentConversation, mergeRestored, wasReloaded } from '../renderer/model/restore-conversation';
import { MIC_METER_CAPTION, micMeter } from '../renderer/model/labels';
import { contextHint, contextInUse, voiceWords } from '../renderer/model/settings-words';
import { traceAxis } from '../renderer/model/trace-axis';
import { isHidden, whileVisible } from '../renderer/model/while-visible';
import { shortcutFieldText, shortcutToSave } from '../renderer/model/shortcut-field';

describe('history time range', () => {
  const now = new Date(2026, 2, 4, 15, 0).getTime();
  const at = (h: number, m: number, s = 0, day = 4) => new Date(2026, 2, day, h, m, s).toISOString();

  it('says one time for a span within a minute, not "Today 14:22 to Today 14:22"', () => {
    assert.equal(formatTimeRange(at(14, 22, 5), at(14, 22, 50), now), 'Today 14:22');
    assert.equal(formatTimeRange(at(14, 22), at(14, 22), now), 'Today 14:22');
  });

  it('says the day once for a span within a day', () => {
    assert.equal(formatTimeRange(at(14, 22), at(14, 35), now), 'Today 14:22–14:35');
    // 40 s apart but across a minute boundary: both minutes are shown.
    assert.equal(formatTimeRange(at(14, 22, 50), at(14, 23, 30), now), 'Today 14:22–14:23');
    assert.equal(formatTimeRange(at(9, 0, 0, 3), at(10, 15, 0, 3), now), 'Yesterday 09:00–10:15');
  });

  it('gives both ends across days, and unparsable ends as they are', () => {
    assert.equal(formatTimeRange(at(23, 50, 0, 3), at(0, 10), now), 'Yesterday 23:50 to Today 00:10');
    assert.equal(formatTimeRange('x', at(14, 22), now), 'x to Today 14:22');
  });
});

describe('shortcut field', () => {
  const saved = 'CommandOrControl+Alt+Space';

  it("shows the shortcut in this platform's words, not accelerator syntax", () => {
    assert.equal(shortcutFieldText(saved, 'linux'), 'Ctrl+Alt+Space');
    assert.equal(shortcutFieldText(saved, 'win32'), 'Ctrl+Alt+Space');
    assert.equal(shortcutFieldText(saved, 'darwin'), '⌥⌘Space');
    assert.equal(shortcutFieldText('', 'linux'), '');
  });

  it('saves nothing new when the label shown is left as it is', () => {
    for (const p of ['linux', 'win32', 'darwin']) assert.equal(shortcutToSave(shortcutFieldText(saved, p), saved, p), saved);
  });

  it('takes labels and accelerator syntax typed into it', () => {
    assert.equal(shortcutToSave('Ctrl+Shift+K', saved, 'linux'), 'Ctrl+Shift+K');
    assert.equal(shortcutToSave('Win+Page Up', saved, 'win32'), 'Super+PageUp');
    assert.equal(shortcutToSave('Ctrl++', saved, 'linux'), 'Ctrl+Plus');
    assert.equal(shortcutToSave('⌃⇧K', saved, 'darwin'), 'Control+Shift+K');
    assert.equal(shortcutToSave('⌘↩', saved, 'darwin'), 'Command+Return');
    assert.equal(shortcutToSave('', saved, 'linux'), '');
    // Not a shortcut: passed on as typed, for the parser's explanation.
    assert.equal(shortcutToSave('Ctrl+Hyper', saved, 'linux'), 'Ctrl+Hyper');
    assert.equal(parseAccelerator(acceleratorFromLabel('⌥⌘Space', 'darwin'), 'darwin').ok, true);
  });
});

describe('desktop settings layout', () => {
  const css = readFileSync(new URL('../renderer/styles.css', import.meta.url), 'utf8');
  const rule = (selector: string) => new RegExp(`(^|\\n)${selector.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*\\{([^}]*)\\}`).exec(css)?.[2] ?? '';
  const source = readFileSync(new URL('../renderer/components/DesktopSettings.tsx', import.meta.url), 'utf8');

  it('puts each switch on a row of its own ("Start when I log in" does not wrap onto another)', () => {
    assert.match(source, /<fieldset className="desktop-settings"/);
    assert.match(rule('.desktop-settings .toggle-row'), /display:\s*flex;/);
  });

  it('gives the shortcut field room for its label', () => {
    assert.match(source, /className="shortcut-input"/);
    assert.match(rule('.desktop-settings .shortcut-input'), /width:\s*16em;/);
  });
});

describe('microphone meter', () => {
  it('has a caption and says its level in words', () => {
    assert.equal(MIC_METER_CAPTION, 'Mic');
    const m = micMeter(10 ** (-30 / 20), true);
    assert.equal(m.db, -30);
    assert.equal(m.text, '-30 dB');
    assert.ok(Math.abs(m.fill - 2 / 3) < 1e-9);
    assert.deepEqual(micMeter(0, true), { fill: 0, db: -60, text: 'silent' });
    assert.deepEqual(micMeter(0.5, false), { fill: 0, db: -60, text: 'microphone off' });
    assert.equal(micMeter(1, true).fill, 1);
  });
});

describe('settings words', () => {
  it('names the voice as a person counts, not "Voice (speaker id) 0"', () => {
    assert.deepEqual(voiceWords(0, null), { label: 'Voice number', value: '1' });
    assert.deepEqual(voiceWords(2, 4), { label: 'Voice', value: 'Voice 3 of 4' });
    assert.deepEqual(voiceWords(9, 4), { label: 'Voice', value: 'Voice 4 of 4' });
  });

  it('says both context sizes when the model runs with less than asked', () => {
    assert.equal(contextHint(4096, 2048), "4096 tokens asked, 2048 in use: the model's limit. Changing the context size or GPU layers reloads the model.");
    assert.equal(contextHint(2048, 2048), 'Changing the context size or GPU layers reloads the model.');
    assert.equal(contextHint(2048, null), 'Changing the context size or GPU layers reloads the model.');
  });
});

describe('updates while the window is hidden', () => {
  function fakeDocument() {
    const listeners: (() => void)[] = [];
    const doc = {
      visibilityState: 'visible',
      addEventListener: (_: 'visibilitychange', f: () => void) => listeners.push(f),
      show(state: 'visible' | 'hidden') {
        doc.visibilityState = state;
        for (const f of listeners) f();
      },
    };
    return doc;
  }

  it('stops the level updates while hidden and resumes with the latest when shown', () => {
    const doc = fakeDocument();
    const published: number[] = [];
    const level = whileVisible<number>(doc, (v) => published.push(v));
    level(0.1);
    doc.show('hidden');
    for (let i = 0; i < 50; i++) level(i / 100);
    assert.deepEqual(published, [0.1]);
    doc.show('visible');
    assert.deepEqual(published, [0.1, 0.49]);
    level(0.2);
    assert.deepEqual(published, [0.1, 0.49, 0.2]);
    // Shown again with nothing new held: nothing is published twice.
    doc.show('hidden');
    doc.show('visible');
    assert.deepEqual(published, [0.1, 0.49, 0.2]);
  });

  it('publishes everything where there is no document', () => {
    const published: number[] = [];
    const level = whileVisible<number>(undefined, (v) => published.push(v));
    level(1);
    assert.deepEqual(published, [1]);
    assert.equal(isHidden(undefined), false);
  });
});

describe('the conversation after a reload', () => {
  const turn = (index: number, patch: Record<string, unknown> = {}, texts = true) =>
    ({ texts, report: { index, userText: `q${index}`, assistantText: `a${index} more`, heardText: `a${index}`, interrupted: false, backchannels: [], ...patch } }) as unknown as LoggedTurn;

  it("rebuilds the current session's turns from the history", () => {
    const entries = entriesFromHistory([turn(0), turn(1, { interrupted: true, backchannels: [{ atMs: 1, text: 'mm-hmm' }] }), turn(2, {}, false)]);
    assert.deepEqual(
      entries.map((e) => [e.turn, e.user, e.assistant, e.heard, e.backchannels, e.userFinal]),
      [
        [0, 'q0', 'a0 more', null, [], true],
        [1, 'q1', 'a1 more', 'a1', ['mm-hmm'], true],
        [2, TEXT_NOT_LOGGED, '', null, [], true],
      ],
    );
    assert.equal(entries[0]!.report?.index, 0);
  });

  it('keeps only the turns since the turn numbers last started again (a model reload)', () => {
    assert.deepEqual(entriesFromHistory([turn(0), turn(1), turn(0), turn(1), turn(2)]).map((e) => e.user), ['q0', 'q1', 'q2']);
    assert.equal(entriesFromHistory([turn(3), turn(0)]).length, 1);
  });

  it('merges under what arrived live, without duplicates', () => {
    const restored = entriesFromHistory([turn(0), turn(1)]);
    const live = entriesFromHistory([turn(1, { userText: 'live' }), turn(2)]);
    assert.deepEqual(mergeRestored(live, restored).map((e) => [e.turn, e.user]), [[0, 'q0'], [1, 'live'], [2, 'q2']]);
  });

  it("asks for the current session's turns; nothing when there is none or the history fails", async () => {
    const session = { id: 's1', startedAt: '', turns: 1, bytes: 1, current: true };
    const asked: string[] = [];
    const api = (sessions: unknown, one: unknown) => ({
      request: (async (r: { type: string; id?: string }) => {
        asked.push(r.id ? `${r.type} ${r.id}` : r.type);
        return r.type === 'history-sessions' ? sessions : one;
      }) as never,
    });
    const entries = await loadCurrentConversation(api({ ok: true, sessions: [{ ...session, id: 's0', current: false }, session] }, { ok: true, session: { id: 's1', startedAt: '', turns: [turn(4)], skipped: 0 } }));
    assert.deepEqual(entries.map((e) => e.user), ['q4']);
    assert.deepEqual(asked, ['history-sessions', 'history-session s1']);
    assert.deepEqual(await loadCurrentConversation(api({ ok: false, error: 'x' }, null)), []);
    assert.deepEqual(await loadCurrentConversation(api({ ok: true, sessions: [{ ...session, turns: 0 }] }, null)), []);
    assert.deepEqual(await loadCurrentConversation(api({ ok: true, sessions: [session] }, { ok: false, error: 'gone' })), []);
  });
});

describe('which page loads restore the conversation', () => {
  const perf = (type?: string) => ({ getEntriesByType: (t: string) => (t === 'navigation' && type ? [{ type }] : []) });
  it('a reload does; a page opened anew or without navigation timing does not', () => {
    assert.equal(wasReloaded(perf('reload')), true);
    assert.equal(wasReloaded(perf('navigate')), false);
    assert.equal(wasReloaded(perf()), false);
    assert.equal(wasReloaded(undefined), false);
  });
});

describe('the Models panel context line', () => {
  it('says the size asked for beside the one in use when they differ', () => {
    assert.equal(contextInUse(2048, 4096), "2048 tokens (4096 asked: the model's limit)");
    assert.equal(contextInUse(2048, 2048), '2048 tokens');
    assert.equal(contextInUse(2048, null), '2048 tokens');
  });
});

describe('the endpointing traces’ time axis', () => {
  it('a turn: round seconds from the end of speech, before it negative, placed across the trace', () => {
    // Speech from 10.0 s to 12.3 s, the trace from 9.3 s to 13.0 s.
    const axis = traceAxis({ from: 9300, to: 13000 }, 12300, '0');
    assert.deepEqual(axis.map((k) => k.label), ['−3 s', '−2 s', '−1 s', '0']);
    const zero = axis.find((k) => k.zero)!;
    assert.ok(Math.abs(zero.at - 3000 / 3700) < 1e-9);
    assert.ok(axis.every((k) => k.at >= 0 && k.at <= 1));
  });

  it('the live trace counts back from now; a short span gets half seconds', () => {
    assert.deepEqual(traceAxis({ from: 0, to: 8000 }, 8000, 'now').map((k) => k.label), ['−8 s', '−6 s', '−4 s', '−2 s', 'now']);
    assert.deepEqual(traceAxis({ from: 1000, to: 3000 }, 2000, '0').map((k) => k.label), ['−1 s', '−0.5 s', '0', '+0.5 s', '+1 s']);
    assert.deepEqual(traceAxis({ from: 5, to: 5 }, 5, '0'), [], 'an empty span has no axis');
  });
});
