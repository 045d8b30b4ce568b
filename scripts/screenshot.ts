/**
 * `npm run screenshot [-- app first-run memory]`: the docs' pictures, all of them or those named,
 * taken with the end-to-end harness (dev:web with the shared test models). app: the app
 * mid-conversation (light and dark), Chromium's microphone playing two_turns.wav, with two timers
 * already in the data folder (as a run that set them by voice leaves them) so the Timers panel has
 * something to show; docs/app.png and docs/app-dark.png. first-run: docs/first-run.png. memory: the
 * Memory tab with three facts in memory.json, docs/memory-panel.png.
 */
import path from 'node:path';
import { nextOccurrence, TimerBook } from '../electron/timers/timer-book';
import { TimerStore } from '../electron/timers/timer-store';
import { launchBrowser, seedMemory, startBridge } from '../test/browser-harness';
import { ROOT, SPEECH, tempDir } from '../test/helpers';

/** A pasta timer with about six and a half minutes left, and an alarm for 7:00 tomorrow morning. */
async function seedTimers(dir: string): Promise<void> {
  const now = Date.now();
  const book = new TimerBook();
  book.startTimer(8 * 60_000, 'pasta', now - 90_000);
  const tomorrow = new Date(now);
  tomorrow.setHours(23, 59, 0, 0);
  book.setAlarm(nextOccurrence(7, 0, 'am', tomorrow), now);
  await new TimerStore(dir).save(book);
}

const named = process.argv.slice(2);
const wanted = (shot: string) => named.length === 0 || named.includes(shot);

for (const scheme of wanted('app') ? (['light', 'dark'] as const) : []) {
  const dir = tempDir('lva-shot-');
  await seedTimers(dir);
  const bridge = await startBridge({ settings: { llm: { threads: 2, maxTokens: 64 } }, settingsFile: path.join(dir, 'settings.json') });
  const browser = await launchBrowser(path.join(SPEECH, 'two_turns.wav'));
  try {
    const page = await browser.newPage({ viewport: { width: 1360, height: 900 }, colorScheme: scheme, deviceScaleFactor: 1 });
    await page.goto(bridge.url);
    // Mid-conversation: the first turn's waterfall is in, the second answer is being spoken.
    await page.locator('[data-testid=user-text]', { hasText: 'play some music' }).waitFor({ timeout: 30_000 });
    await page.locator('[data-testid=assistant-state][data-state=speaking]').waitFor({ timeout: 30_000 });
    await page.locator('[data-testid=timer-remaining]').waitFor();
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
if (wanted('first-run')) {
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

// The Memory tab with three facts said over a few days (written before the app starts, as voice would leave them).
if (wanted('memory')) {
  const dir = tempDir('lva-shot-');
  const day = (n: number) => new Date(Date.now() - n * 86_400_000);
  await seedMemory(dir, [
    { text: 'my sister is called Anna', said: day(9) },
    { text: 'I am vegetarian', said: day(4) },
    { text: "my daughter's school starts at 8:15", said: day(1) },
  ]);
  const bridge = await startBridge({ settings: { llm: { threads: 2, maxTokens: 16 } }, settingsFile: path.join(dir, 'settings.json') });
  const browser = await launchBrowser(path.join(SPEECH, 'silence.wav'));
  try {
    const page = await browser.newPage({ viewport: { width: 1360, height: 900 }, deviceScaleFactor: 1 });
    await page.goto(bridge.url);
    await page.locator('[data-testid=assistant-state][data-state=listening]').waitFor({ timeout: 30_000 });
    await page.getByTestId('tab-memory').click();
    await page.getByTestId('memory-fact').nth(2).waitFor();
    const file = path.join(ROOT, 'docs', 'memory-panel.png');
    await page.locator('.panel.tabs').screenshot({ path: file });
    console.log(`wrote ${path.relative(ROOT, file)}`);
  } finally {
    await browser.close();
    await bridge.stop();
  }
}
