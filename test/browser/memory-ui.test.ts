/**
 * The Memory tab in Chromium through `dev:web` (the app's controller and renderer), on a real data
 * folder: memory.json written with three facts before the app starts is listed with the dates they
 * were said; Delete and Clear all change the file on disk, the switch writes memory.enabled to
 * settings.json, and a memory.json the app cannot use is named in the panel and left byte for byte
 * as it was until Clear all moves it aside. No fact reaches dev:web's log.
 */
import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { MEMORY_FILE } from '../../electron/memory/memory-store';
import type { Settings } from '../../electron/settings/schema';
import { browserMissing, launchBrowser, openApp, pageErrors, seedMemory, startBridge } from '../browser-harness';
import { SPEECH, tempDir } from '../helpers';

const skip = process.env.SKIP_BROWSER_TESTS ? 'SKIP_BROWSER_TESTS is set' : false;

/** Said at noon UTC, so the local date is the same in every time zone within 11 hours of it. */
const FACTS = [
  { text: 'my sister is called Anna', said: new Date(Date.UTC(2026, 11, 5, 12)), date: '5 Dec 2026' },
  { text: 'I am vegetarian', said: new Date(Date.UTC(2026, 11, 6, 12)), date: '6 Dec 2026' },
  { text: 'my car is a blue Fiat', said: new Date(Date.UTC(2026, 11, 7, 12)), date: '7 Dec 2026' },
];

const factsOnDisk = async (dir: string) => (JSON.parse(await readFile(path.join(dir, MEMORY_FILE), 'utf8')) as { facts: { text: string }[] }).facts.map((f) => f.text);
const memoryEnabled = async (file: string) => (JSON.parse(await readFile(file, 'utf8')) as Partial<Settings>).memory?.enabled;

/** Polls `get` until it equals `want` (files are written just after the window shows the change). */
async function eventually<T>(what: string, get: () => Promise<T>, want: T, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < end) {
    last = await get().catch(() => undefined);
    if (JSON.stringify(last) === JSON.stringify(want)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.deepEqual(last, want, what);
}

async function openMemory(url: string, run: (page: Page) => Promise<void>): Promise<void> {
  const browser = await launchBrowser(path.join(SPEECH, 'silence.wav'));
  try {
    const page = await openApp(browser, url);
    await page.getByTestId('tab-memory').click();
    await page.getByTestId('memory').waitFor();
    await run(page);
    assert.deepEqual(pageErrors(page), []);
  } finally {
    await browser.close();
  }
}

describe('the Memory tab in Chromium', { skip }, () => {
  it('lists the facts in memory.json with their dates; Delete, Clear all and the switch change the files', async () => {
    const missing = browserMissing();
    if (missing) throw new Error(missing);
    const dir = tempDir('lva-memory-ui-');
    await seedMemory(dir, FACTS);
    const bridge = await startBridge({ settingsFile: path.join(dir, 'settings.json') });
    try {
      await openMemory(bridge.url, async (page) => {
        const rows = page.getByTestId('memory-fact');
        await rows.nth(2).waitFor();
        // Newest first, each with the local date it was said.
        assert.deepEqual(await page.getByTestId('memory-fact-text').allTextContents(), FACTS.map((f) => f.text).reverse());
        assert.deepEqual(await page.getByTestId('memory-fact-date').allTextContents(), FACTS.map((f) => f.date).reverse());

        await page.getByRole('button', { name: 'Delete “I am vegetarian”' }).click();
        await page.locator('[data-testid=memory-fact]').nth(2).waitFor({ state: 'detached' });
        await eventually('memory.json after Delete', () => factsOnDisk(dir), [FACTS[0]!.text, FACTS[2]!.text]);
        assert.deepEqual(await page.getByTestId('memory-fact-text').allTextContents(), [FACTS[2]!.text, FACTS[0]!.text]);

        // Clear all asks in the page first; Cancel keeps everything.
        await page.getByTestId('memory-clear').click();
        await page.getByText('Forget all 2 facts? This cannot be undone.').waitFor();
        await page.getByTestId('memory-clear-cancel').click();
        assert.equal(await rows.count(), 2);
        await page.getByTestId('memory-clear').click();
        await page.getByTestId('memory-clear-confirm').click();
        await page.getByTestId('memory-empty').getByText('Say “remember that …” and it shows here.').waitFor();
        await eventually('memory.json after Clear all', () => factsOnDisk(dir), []);

        const toggle = page.getByTestId('toggle-memory.enabled');
        assert.equal(await toggle.getAttribute('aria-checked'), 'true');
        await toggle.click();
        await page.locator('[data-testid="toggle-memory.enabled"][aria-checked=false]').waitFor();
        await eventually('memory.enabled switched off', () => memoryEnabled(bridge.settingsFile), false);
        await page.getByText(/^Off: nothing new is kept/).waitFor();
        await toggle.click();
        await page.locator('[data-testid="toggle-memory.enabled"][aria-checked=true]').waitFor();
        await eventually('memory.enabled switched on', () => memoryEnabled(bridge.settingsFile), true);
      });
      for (const f of FACTS) assert.ok(!bridge.output().includes(f.text), `"${f.text}" reached dev:web's log`);
    } finally {
      await bridge.stop();
    }
  });

  it('names a memory.json it cannot use, leaves it untouched, and Clear all moves it aside and starts afresh', async () => {
    const dir = tempDir('lva-memory-ui-');
    const corrupt = '{"version": 1, "facts": [{"text": "my sister is called Anna", "said": "2026-12-05T12:00:00.000Z"}';
    await writeFile(path.join(dir, MEMORY_FILE), corrupt);
    const bridge = await startBridge({ settingsFile: path.join(dir, 'settings.json') });
    try {
      await openMemory(bridge.url, async (page) => {
        const problem = page.getByTestId('memory-problem');
        await problem.waitFor();
        assert.match((await problem.textContent()) ?? '', /memory\.json is not valid JSON.*It was left as it is, and memory is off until you clear it/);
        assert.equal(await page.getByTestId('memory-fact').count(), 0);
        assert.equal(await readFile(path.join(dir, MEMORY_FILE), 'utf8'), corrupt, 'untouched');

        await page.getByTestId('memory-clear').click();
        await page.getByText('Start a new, empty memory? The file that could not be used is kept aside, not deleted.').waitFor();
        await page.getByTestId('memory-clear-confirm').click();
        await problem.waitFor({ state: 'detached' });
        await page.getByTestId('memory-empty').waitFor();
        await eventually('a new, empty memory.json', () => factsOnDisk(dir), []);
        const aside = (await readdir(dir)).find((f) => f.startsWith(`${MEMORY_FILE}.unreadable-`));
        assert.ok(aside, 'the unusable file was moved aside');
        assert.equal(await readFile(path.join(dir, aside), 'utf8'), corrupt);
      });
      assert.ok(!bridge.output().includes('my sister is called Anna'), "the unusable file's facts reached dev:web's log");
    } finally {
      await bridge.stop();
    }
  });
});
