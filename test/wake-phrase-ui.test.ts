/**
 * The wake phrase in the window, in Chromium through `dev:web` (the same controller and renderer as
 * the app). Its microphone plays 3 s of silence, then `listening/wake_time` ("hey computer, what
 * time is it"), then `no_wake`'s "what time is it" without the phrase. The mode picker switches to
 * the wake phrase; the phrase check shows what the recognizer heard; only the request is answered.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readWavFile, writeWavFile } from '../electron/audio/wav';
import { toMono16k } from '../electron/audio/resample';
import { browserMissing, launchBrowser, openApp, pageErrors, startBridge, TEST_SETTINGS, type Bridge } from './browser-harness';
import { SPEECH } from './helpers';

const skip = process.env.SKIP_BROWSER_TESTS ? 'SKIP_BROWSER_TESTS is set' : false;

describe('the wake phrase in Chromium', { skip }, () => {
  let bridge: Bridge;
  let wav: string;
  before(async () => {
    const missing = browserMissing();
    if (missing) throw new Error(missing);
    const clip = async (name: string) => toMono16k(await readWavFile(path.join(SPEECH, 'listening', name)));
    const request = await clip('wake_time.wav');
    // "what time is it" alone: 0.5-1.36 s of no_wake.
    const other = (await clip('no_wake.wav')).subarray(16 * 300, 16 * 1700);
    const silence = (ms: number) => new Float32Array(16 * ms);
    const parts = [silence(3000), request, silence(1500), other, silence(3000)];
    const all = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      all.set(p, at);
      at += p.length;
    }
    wav = path.join(mkdtempSync(path.join(os.tmpdir(), 'lva-wake-')), 'wake.wav');
    await writeWavFile(wav, all, 16000);
    bridge = await startBridge({ settings: TEST_SETTINGS });
  });
  after(async () => {
    await bridge?.stop();
  });

  it('the mode picker turns it on, the phrase check shows what was heard, and only the request is answered', async () => {
    const browser = await launchBrowser(wav);
    try {
      const page = await openApp(browser, bridge.url);
      await page.getByTestId('mode-wake-phrase').click();
      await page.locator('[data-testid=mode-wake-phrase][aria-checked=true]').waitFor({ timeout: 2000 });
      assert.match((await page.getByTestId('talk-button').textContent()) ?? '', /Say “hey computer” first/);
      await page.getByTestId('tab-settings').click();
      assert.equal(await page.getByTestId('wake-phrase').inputValue(), 'hey computer');
      await page.getByTestId('wake-check').click();
      const result = page.getByTestId('wake-check-result');
      assert.match((await result.textContent()) ?? '', /Listening: say “hey computer”/);
      await page.locator('[data-testid=wake-check-result]', { hasText: 'Heard' }).waitFor({ timeout: 30_000 });
      const said = (await result.textContent()) ?? '';
      assert.match(said, /^Heard “.*time is it”: the phrase was recognized\.$/, said);

      // The request is answered, started by the phrase; "what time is it" without it is not.
      await page.locator('[data-testid=exchange] .meta').first().waitFor({ timeout: 60_000 });
      assert.match((await page.getByTestId('user-text').first().textContent()) ?? '', /^wh?at time is it$/);
      assert.match((await page.locator('[data-testid=exchange] .meta').first().textContent()) ?? '', /^started by the wake phrase · ended by/);
      await page.waitForTimeout(6000);
      assert.equal(await page.getByTestId('exchange').count(), 1, 'speech without the phrase is no turn');
      assert.deepEqual(pageErrors(page), []);
    } finally {
      await browser.close();
    }
  });
});
