/**
 * One-shot listening in the window, in Chromium through `dev:web` (the same controller and renderer
 * as the app), its microphone fed from `two_turns` ("turn on the kitchen lights" at 0.55-1.9 s, "and
 * play some music" at 5.24-6.52 s): idle, the first words are ignored; a press of the talk button
 * listens for one turn, which is answered; then it is idle again.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { browserMissing, launchBrowser, openApp, pageErrors, startBridge, TEST_SETTINGS, type Bridge } from '../browser-harness';
import { SPEECH } from '../helpers';

const skip = process.env.SKIP_BROWSER_TESTS ? 'SKIP_BROWSER_TESTS is set' : false;

describe('one-shot listening in Chromium', { skip }, () => {
  let bridge: Bridge;
  before(async () => {
    const missing = browserMissing();
    if (missing) throw new Error(missing);
    bridge = await startBridge({ settings: { ...TEST_SETTINGS, mode: 'one-shot' } });
  });
  after(async () => {
    await bridge?.stop();
  });

  it('the talk button listens for one turn; before and after it the microphone is idle', async () => {
    const browser = await launchBrowser(path.join(SPEECH, 'two_turns.wav'));
    try {
      const page = await openApp(browser, bridge.url, 'idle');
      const state = page.getByTestId('assistant-state');
      const button = page.getByTestId('talk-button');
      assert.equal(await page.getByTestId('mode-one-shot').getAttribute('aria-checked'), 'true');
      assert.match((await state.textContent()) ?? '', /Idle/);
      assert.match((await button.textContent()) ?? '', /^Press to talk \(Space\)$/, 'no global shortcut in a browser');

      // The first words (0.55-1.9 s) are spoken while idle: no turn comes of them.
      await page.waitForTimeout(3000);
      assert.equal(await page.getByTestId('exchange').count(), 0, 'idle: speech is not a turn');
      await button.click();
      await page.locator('[data-testid=assistant-state][data-state=listening]').waitFor({ timeout: 2000 });
      assert.match((await button.textContent()) ?? '', /Listening… press again to stop/);

      // "and play some music" (5.24-6.52 s) is the turn; it is answered, and listening closes.
      await page.locator('[data-testid=exchange] .meta').first().waitFor({ timeout: 60_000 });
      const user = (await page.getByTestId('user-text').first().textContent()) ?? '';
      assert.match(user, /music/, user);
      assert.doesNotMatch(user, /kitchen/, user);
      assert.match((await page.locator('[data-testid=exchange] .meta').first().textContent()) ?? '', /^started by a press · ended by/);
      await page.locator('[data-testid=assistant-state][data-state=idle]').waitFor({ timeout: 30_000 });
      assert.equal(await page.getByTestId('exchange').count(), 1);
      await page.getByTestId('tab-settings').click();
      assert.match((await page.getByTestId('shortcut-state').textContent()) ?? '', /work in the desktop app/);
      assert.deepEqual(pageErrors(page), []);
    } finally {
      await browser.close();
    }
  });
});
