/**
 * The tray icon as data: the state read from the app events, the tooltip, the menu, and the icon
 * bitmap handed to nativeImage (BGRA, premultiplied: size, colours, transparent corners).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  INITIAL_TRAY_INPUT,
  nextTrayInput,
  TRAY_COLORS,
  TRAY_ICON_SIZES,
  TRAY_STATES,
  trayIconBitmap,
  trayMenu,
  trayState,
  trayTooltip,
  trayView,
  type TrayInput,
  type TrayState,
  type TrayView,
} from '../electron/desktop/tray-model';
import type { AppEvent, AppStatus } from '../electron/ipc-contract';
import type { AssistantState } from '../electron/pipeline/events';

function status(patch: Partial<AppStatus>): AppEvent {
  const base: AppStatus = {
    phase: 'ready',
    setup: null,
    listening: true,
    models: [],
    llm: null,
    desktop: { shell: true, shortcut: 'CommandOrControl+Alt+Space', shortcutError: null },
    apiKey: { stored: false, protection: '', for: null },
    microphone: null,
    microphoneProblem: null,
    confirmation: null,
    tools: { builtIn: [], servers: [] },
    error: null,
  };
  return { type: 'status', status: { ...base, ...patch } };
}

const state = (s: AssistantState): AppEvent => ({ type: 'pipeline', event: { type: 'state', t: 0, state: s } });

function run(events: AppEvent[], from: TrayInput = INITIAL_TRAY_INPUT): TrayInput {
  return events.reduce(nextTrayInput, from);
}

describe('the tray state from the app events', () => {
  it('starting until ready, then what the pipeline says', () => {
    assert.equal(trayState(INITIAL_TRAY_INPUT), 'starting');
    assert.equal(trayState(run([status({ phase: 'loading' })])), 'starting');
    assert.equal(trayState(run([status({ phase: 'setup' })])), 'starting');
    assert.equal(trayState(run([status({ phase: 'ready' })])), 'idle');
    for (const s of ['idle', 'listening', 'hearing', 'thinking', 'speaking'] as const) {
      assert.equal(trayState(run([status({}), state(s)])), s);
    }
    assert.equal(trayState(run([status({ phase: 'error', error: 'no model' })])), 'error');
  });

  it('listening off is muted, unless an answer is being thought or spoken', () => {
    assert.equal(trayState(run([status({}), state('listening'), status({ listening: false })])), 'muted');
    assert.equal(trayState(run([status({}), state('idle'), status({ listening: false })])), 'muted');
    assert.equal(trayState(run([status({ listening: false }), state('speaking')])), 'speaking');
    assert.equal(trayState(run([status({ listening: false }), state('thinking')])), 'thinking');
    assert.equal(trayState(run([status({ listening: false }), state('speaking'), state('listening')])), 'muted');
  });

  it('a stopped microphone (the watchdog) is an error with its reason while listening, and clears when sound is back', () => {
    const stopped = run([status({}), state('listening'), status({ microphoneProblem: 'The microphone stopped sending sound.' })]);
    assert.equal(trayState(stopped), 'error');
    assert.equal(trayView(stopped, '').detail, 'The microphone stopped sending sound.');
    assert.equal(trayState(run([status({ microphoneProblem: null })], stopped)), 'listening');
    assert.equal(trayState(run([status({ listening: false })], stopped)), 'muted', 'muted: the microphone is not expected to send');
  });

  it('a reload forgets the old pipelineʼs state', () => {
    const input = run([status({}), state('speaking'), status({ phase: 'loading' }), status({ phase: 'ready' })]);
    assert.equal(input.pipeline, null);
    assert.equal(trayState(input), 'idle');
  });

  it('an event that changes nothing the tray shows returns the same input (no redraw)', () => {
    const input = run([status({}), state('listening')]);
    assert.equal(nextTrayInput(input, state('listening')), input);
    assert.equal(nextTrayInput(input, status({ models: [{ kind: 'vad', state: 'ready' }] })), input);
    assert.equal(nextTrayInput(input, { type: 'notice', level: 'info', message: 'hi' }), input);
    assert.equal(nextTrayInput(input, { type: 'pipeline', event: { type: 'partial', t: 1, turn: 0, text: 'hel' } }), input);
  });
});

const view = (patch: Partial<TrayView>): TrayView => ({ state: 'idle', muted: false, shortcutLabel: 'Ctrl+Alt+Space', detail: null, ...patch });

describe('tooltip and menu', () => {
  it('the tooltip says the state, and how to talk when idle', () => {
    assert.equal(trayTooltip(view({}), 'Local Voice Assistant'), 'Local Voice Assistant: ready, press Ctrl+Alt+Space to talk');
    assert.equal(trayTooltip(view({ shortcutLabel: '' }), 'LVA'), 'LVA: ready');
    assert.equal(trayTooltip(view({ state: 'hearing' }), 'LVA'), 'LVA: hearing you');
    assert.equal(trayTooltip(view({ state: 'muted', muted: true }), 'LVA'), 'LVA: microphone muted');
    const setup = trayView(run([status({ phase: 'setup' })]), '');
    assert.equal(trayTooltip(setup, 'LVA'), 'LVA: starting (open the window to download the models)');
  });

  it('an error is shown, cut to the 127 characters Windows allows', () => {
    const long = trayTooltip(trayView(run([status({ phase: 'error', error: 'x'.repeat(300) })]), ''), 'Local Voice Assistant');
    assert.equal(long.length, 127);
    assert.ok(long.startsWith('Local Voice Assistant: not available (xxx') && long.endsWith('…'));
  });

  it('Talk (with the shortcut), Mute microphone (a checkbox), Show window, Quit', () => {
    assert.deepEqual(trayMenu(view({ muted: true, state: 'muted' }), 'Local Voice Assistant'), [
      { kind: 'action', action: 'talk', label: 'Talk (Ctrl+Alt+Space)', enabled: true },
      { kind: 'action', action: 'mute', label: 'Mute microphone', enabled: true, checked: true },
      { kind: 'action', action: 'show', label: 'Show window', enabled: true },
      { kind: 'separator' },
      { kind: 'action', action: 'quit', label: 'Quit Local Voice Assistant', enabled: true },
    ]);
    const starting = trayMenu(view({ state: 'starting', shortcutLabel: '' }), 'LVA');
    assert.deepEqual(starting[0], { kind: 'action', action: 'talk', label: 'Talk', enabled: false });
    assert.deepEqual(trayMenu(view({ state: 'error' }), 'LVA')[0], { kind: 'action', action: 'talk', label: 'Talk (Ctrl+Alt+Space)', enabled: false });
  });
});

/** [b, g, r, a] at pixel (x, y). */
function pixel(bitmap: { buffer: Buffer; width: number }, x: number, y: number): number[] {
  const i = (y * bitmap.width + x) * 4;
  return [...bitmap.buffer.subarray(i, i + 4)];
}

describe('the tray icon bitmap', () => {
  it('is size x size BGRA at 16 and 32 px, with transparent corners', () => {
    assert.deepEqual(TRAY_ICON_SIZES.map((s) => [s.size, s.scaleFactor]), [[16, 1], [32, 2]]);
    for (const s of TRAY_STATES) {
      for (const { size } of TRAY_ICON_SIZES) {
        for (const template of [false, true]) {
          const bmp = trayIconBitmap(s, size, template);
          assert.equal(bmp.width, size);
          assert.equal(bmp.height, size);
          assert.equal(bmp.buffer.length, size * size * 4);
          for (const [x, y] of [[0, 0], [size - 1, 0], [0, size - 1], [size - 1, size - 1]] as const) assert.deepEqual(pixel(bmp, x, y), [0, 0, 0, 0], `${s} ${size} ${template}`);
        }
      }
    }
  });

  it('the disc is the stateʼs colour, opaque, around the white mark', () => {
    for (const s of TRAY_STATES) {
      const bmp = trayIconBitmap(s, 32);
      const [r, g, b] = TRAY_COLORS[s];
      // Just inside the rim, above the centre: no mark reaches there.
      assert.deepEqual(pixel(bmp, 16, 3), [b, g, r, 255], s);
    }
    // The centre: the mark (white) where there is one, nothing in the starting ring.
    assert.deepEqual(pixel(trayIconBitmap('idle', 32), 16, 16), [255, 255, 255, 255]);
    assert.deepEqual(pixel(trayIconBitmap('thinking', 16), 8, 8).slice(3), [255]);
    assert.deepEqual(pixel(trayIconBitmap('starting', 32), 16, 16), [0, 0, 0, 0]);
  });

  it('every state looks different', () => {
    const seen = new Set(TRAY_STATES.map((s: TrayState) => trayIconBitmap(s, 16).buffer.toString('base64')));
    assert.equal(seen.size, TRAY_STATES.length);
    const templates = new Set(TRAY_STATES.map((s) => trayIconBitmap(s, 16, true).buffer.toString('base64')));
    assert.equal(templates.size, TRAY_STATES.length);
  });

  it('macOS template: black with alpha only (premultiplied: colour never exceeds alpha)', () => {
    const bmp = trayIconBitmap('listening', 32, true);
    for (let i = 0; i < bmp.buffer.length; i += 4) assert.deepEqual([...bmp.buffer.subarray(i, i + 3)], [0, 0, 0]);
    assert.equal(pixel(bmp, 16, 2)[3], 255, 'the ring is opaque');
    assert.equal(pixel(bmp, 6, 16)[3], 0, 'between ring and mark is clear');
    const colour = trayIconBitmap('speaking', 32);
    for (let i = 0; i < colour.buffer.length; i += 4) {
      const a = colour.buffer[i + 3]!;
      for (let c = 0; c < 3; c++) assert.ok(colour.buffer[i + c]! <= a, `premultiplied at byte ${i}`);
    }
  });
});
