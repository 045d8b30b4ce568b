/**
 * Listening in the window, in Chromium through `dev:web` (the same controller and renderer as the
 * app).
 * - The wake phrase: the microphone plays 3 s of silence, then `listening/wake_time` ("hey computer,
 *   what time is it"), then `no_wake`'s "what time is it" without the phrase. The mode picker switches
 *   to the wake phrase; the phrase check shows what the recognizer heard; only the request is answered.
 * - Acknowledgements: 2 s of silence, then `listening/backchannels` (a request for a story, then "mm
 *   hmm", "yeah", "okay" over the answer): one exchange, the three shown quietly under the answer.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readWavFile, writeWavFile } from '../../electron/audio/wav';
import { toMono16k } from '../../electron/audio/resample';
import { browserMissing, launchBrowser, openApp, pageErrors, startBridge, TEST_SETTINGS, type Bridge } from '../browser-harness';
import { SPEECH } from '../helpers';

const skip = process.env.SKIP_BROWSER_TESTS ? 'SKIP_BROWSER_TESTS is set' : false;

const clip = async (name: string) => toMono16k(await readWavFile(path.join(SPEECH, 'listening', name)));
const silence = (ms: number) => new Float32Array(16 * ms);

/** The parts one after another, written as a 16 kHz WAV for the fake microphone. */
async function micFile(name: string, parts: Float32Array[]): Promise<string> {
  const all = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'lva-listen-')), name);
  await writeWavFile(file, all, 16000);
  return file;
}

/** A fresh `dev:web` per test: what one test's answers leave playing must not reach the next. */
function withBridge(settings: object): () => Bridge {
  let bridge: Bridge;
  before(async () => {
    const missing = browserMissing();
    if (missing) throw new Error(missing);
    bridge = await startBridge({ settings });
  });
  after(async () => {
    await bridge?.stop();
  });
  return () => bridge;
}

describe('the wake phrase in Chromium', { skip }, () => {
  const bridge = withBridge(TEST_SETTINGS);

  it('the wake phrase: the mode picker turns it on, the phrase check shows what was heard, and only the request is answered', async () => {
    // "what time is it" alone: 0.3-1.7 s of no_wake.
    const wav = await micFile('wake.wav', [silence(3000), await clip('wake_time.wav'), silence(1500), (await clip('no_wake.wav')).subarray(16 * 300, 16 * 1700), silence(3000)]);
    const browser = await launchBrowser(wav);
    try {
      const page = await openApp(browser, bridge().url);
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

describe('acknowledgements in Chromium', { skip }, () => {
  // Answers long enough to be talked over.
  const bridge = withBridge({ ...TEST_SETTINGS, llm: { ...TEST_SETTINGS.llm, maxTokens: 200 } });

  it('acknowledgements over the answer are shown quietly under it, and are no exchange of their own', async () => {
    const wav = await micFile('backchannels.wav', [silence(2000), await clip('backchannels.wav')]);
    const browser = await launchBrowser(wav);
    try {
      const page = await openApp(browser, bridge().url);
      await page.getByTestId('mode-hands-free').click();
      await page.locator('[data-testid=mode-hands-free][aria-checked=true]').waitFor({ timeout: 2000 });
      // On a timeout, say which step did not come and what the window showed instead.
      const shownNow = async () => {
        const state = await page.getByTestId('assistant-state').getAttribute('data-state');
        const error = (await page.getByTestId('status-error').allTextContents()).join(' ');
        const exchanges = (await page.getByTestId('exchange').allTextContents()).join('\n---\n');
        return `state ${state}; error "${error}"; exchanges:\n${exchanges}`;
      };
      // The request is said 2 s in (its answer is what the acknowledgements are said over),
      await page
        .getByTestId('user-text')
        .first()
        .waitFor({ timeout: 30_000 })
        .catch(async (e: Error) => assert.fail(`the request was not heard: ${e.message}\n${await shownNow()}`));
      // and "okay" 16.2 s in; its decision follows its end of turn.
      const acks = page.getByTestId('backchannels');
      const three = page.waitForFunction(() => (document.querySelector('[data-testid=backchannels]')?.textContent ?? '').split('·').length >= 3, null, { timeout: 40_000 });
      await three.catch(async (e: Error) => assert.fail(`${e.message}\n${await shownNow()}`));
      const shown = (await acks.textContent()) ?? '';
      assert.match(shown, /^“[^”]+” · “[^”]+” · “okay”$/, shown);
      assert.equal(await page.getByTestId('exchange').count(), 1, 'one exchange: the request');
      assert.equal(await page.locator('[data-testid=assistant-text].interrupted').count(), 0, 'the answer was not stopped');
      assert.deepEqual(pageErrors(page), []);
    } finally {
      await browser.close();
    }
  });
});
