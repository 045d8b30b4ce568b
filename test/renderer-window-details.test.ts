/** The window's details (issue 25): pure helpers behind the words the window shows. */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { acceleratorFromLabel, parseAccelerator } from '../electron/settings/accelerator';
import { formatTimeRange } from '../renderer/model/history';
import { MIC_METER_CAPTION, micMeter } from '../renderer/model/labels';
import { contextHint, voiceWords } from '../renderer/model/settings-words';
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
