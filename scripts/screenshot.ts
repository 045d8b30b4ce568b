/**
 * `npm run screenshot`: the README's pictures of the app mid-conversation (light and dark), taken
 * with the end-to-end harness: dev:web with the shared test models, Chromium's microphone playing
 * two_turns.wav. Writes docs/app.png, docs/app-dark.png and docs/first-run.png.
 */
import path from 'node:path';
import { launchBrowser, startBridge } from '../test/browser-harness';
import { ROOT, SPEECH, tempDir } from '../test/helpers';

for (const scheme of ['light', 'dark'] as const) {
  const bridge = await startBridge({ settings: { llm: { threads: 2, maxTokens: 64 } } });
  const browser = await launchBrowser(path.join(SPEECH, 'two_turns.wav'));
  try {
    const page = await browser.newPage({ viewport: { width: 1360, height: 900 }, colorScheme: scheme, deviceScaleFactor: 1 });
    await page.goto(bridge.url);
    // Mid-conversation: the first turn's waterfall is in, the second answer is being spoken.
    await page.locator('[data-testid=user-text]', { hasText: 'play some music' }).waitFor({ timeout: 30_000 });
    await page.locator('[data-testid=assistant-state][data-state=speaking]').waitFor({ timeout: 30_000 });
    await page.waitForTimeout(1200);
    const file = path.join(ROOT, 'docs', scheme === 'light' ? 'app.png' : 'app-dark.png');
    await page.screenshot({ path: file });
    console.log(`wrote ${path.relative(ROOT, file)}`);
  } finally {
    await browser.close();
    await bridge.stop();
  }
}

// First run with the real default catalog and an empty models folder: the plan, before downloading.
{
  const bridge = await startBridge({ models: path.join(tempDir('lva-shot-'), 'models') });
  const browser = await launchBrowser(path.join(SPEECH, 'silence.wav'));
  try {
    const page = await browser.newPage({ viewport: { width: 1100, height: 720 }, deviceScaleFactor: 1 });
    await page.goto(bridge.url);
    await page.locator('[data-testid=first-run]').waitFor({ timeout: 30_000 });
    const file = path.join(ROOT, 'docs', 'first-run.png');
    await page.screenshot({ path: file });
    console.log(`wrote ${path.relative(ROOT, file)}`);
  } finally {
    await browser.close();
    await bridge.stop();
  }
}
