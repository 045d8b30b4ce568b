/**
 * The History tab end to end in Chromium (dev:web bridge, real engines, the shared test models): a
 * session held by voice is logged, listed as this session with its turn count, shows its turns with
 * the user's words and a latency bar, exports as JSON, and Clear history empties the list.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { HistorySession } from '../../electron/history/log-format';
import { exportFileName } from '../../renderer/model/history';
import { browserMissing, launchBrowser, openApp, pageErrors, startBridge, type Bridge } from '../browser-harness';
import { SPEECH } from '../helpers';

const skip = process.env.SKIP_BROWSER_TESTS ? 'SKIP_BROWSER_TESTS is set' : false;
const missing = browserMissing();

describe('the History tab in Chromium (dev:web bridge, real engines)', { skip }, () => {
  let bridge: Bridge;
  before(async () => {
    if (missing) throw new Error(missing);
    bridge = await startBridge();
  });
  after(async () => {
    await bridge?.stop();
  });

  it('lists the session just held, shows its turns, exports it as JSON and clears it', async () => {
    const browser = await launchBrowser(path.join(SPEECH, 'weather.wav'));
    const page = await openApp(browser, bridge.url);
    try {
      // The tab is open before anything is said: the session appears when its turn is logged.
      await page.locator('[data-testid=tab-history]').click();
      const session = page.locator('[data-testid=history-session]');
      await session.first().waitFor({ timeout: 60_000 });
      // The conversation shows the turn too: the history must have the same words.
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=exchange] .meta').length >= 1, null, { timeout: 30_000 });
      const said = ((await page.locator('[data-testid=user-text]').first().textContent()) ?? '').trim();
      assert.match(said, /weather/, 'the clip was recognized');

      assert.equal(await session.count(), 1, 'one session');
      assert.equal(await session.getAttribute('data-current'), 'true');
      assert.match((await session.textContent()) ?? '', /this session/);
      assert.equal(await page.locator('[data-testid=history-session-turns]').textContent(), '1 turn');
      assert.equal(await page.locator('[data-testid=history-total-turns]').textContent(), '1 turn');
      assert.match((await page.locator('[data-testid=history-stats]').textContent()) ?? '', /Voice to voice\d+ ms\d+ ms/);

      await session.click();
      assert.equal(await session.getAttribute('aria-pressed'), 'true');
      const turn = page.locator('[data-testid=history-turn]');
      await turn.first().waitFor();
      assert.equal(await turn.count(), 1);
      assert.equal(((await turn.locator('[data-testid=history-user-text]').textContent()) ?? '').replace(/^You: /, ''), said);
      assert.ok(((await turn.locator('[data-testid=history-answer-text]').textContent()) ?? '').replace(/^Assistant: /, '').trim().length > 0, 'the answer is shown');
      // The bar: every stage up to the first audio, as the waterfall has them.
      const segments = await turn.locator('[data-testid=history-bar-segment]').evaluateAll((els) => els.map((e) => e.className));
      assert.deepEqual(segments, ['stage-endpoint', 'stage-stt', 'stage-llm', 'stage-clause', 'stage-tts']);
      assert.match((await turn.locator('[data-testid=history-bar]').getAttribute('aria-label')) ?? '', /voice to voice \d+ ms/);
      assert.match((await turn.locator('[data-testid=history-v2v]').textContent()) ?? '', /^\d+ ms$|^\d+\.\d s$/);

      // Export: a download named after the session, holding the session as JSON.
      const id = (await session.getAttribute('data-session-id')) ?? '';
      const [download] = await Promise.all([page.waitForEvent('download', { timeout: 10_000 }), page.locator('[data-testid=history-export]').click()]);
      assert.equal(download.suggestedFilename(), exportFileName(id));
      const exported = JSON.parse(await readFile(await download.path(), 'utf8')) as HistorySession;
      assert.equal(exported.id, id);
      assert.equal(exported.turns.length, 1);
      assert.equal(exported.turns[0]!.report.userText, said);
      assert.equal(exported.turns[0]!.session, id);

      // Clear history asks first, inline; then the list is empty.
      await page.locator('[data-testid=history-clear]').click();
      await page.locator('[data-testid=history-clear-confirm]').click();
      await page.locator('[data-testid=history-empty]').waitFor({ timeout: 10_000 });
      assert.match((await page.locator('[data-testid=history-empty]').textContent()) ?? '', /No conversations yet/);
      assert.equal(await session.count(), 0);
      assert.deepEqual(pageErrors(page), [], 'no errors in the page');
    } catch (e) {
      const err = e as Error;
      const shown = await page.locator('body').innerText().catch(() => '(page gone)');
      err.message += `\n--- page ---\n${shown.slice(0, 3000)}\n--- page errors ---\n${pageErrors(page).join('\n')}\n--- dev:web ---\n${bridge.output().slice(-3000)}`;
      throw err;
    } finally {
      await browser.close();
    }
  });
});
