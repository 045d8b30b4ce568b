/**
 * The tray icon as data: the assistant's state read from the app events, the tooltip, the menu,
 * and the icon itself drawn into a bitmap. Pure, so all of it is tested without Electron; tray.ts
 * hands the results to Electron's Tray, Menu and nativeImage.
 */
import type { AppEvent, AppStatus } from '../ipc-contract';
import type { AssistantState } from '../pipeline/events';
import type { ShellPlatform } from '../settings/accelerator';

export type TrayState = 'idle' | 'listening' | 'hearing' | 'thinking' | 'speaking' | 'starting' | 'error' | 'muted';
export const TRAY_STATES: readonly TrayState[] = ['idle', 'listening', 'hearing', 'thinking', 'speaking', 'starting', 'error', 'muted'];

/** What the tray follows from the app events. */
export interface TrayInput {
  phase: AppStatus['phase'];
  /** The microphone switch: false is muted. */
  listening: boolean;
  /** The pipeline's last state, while the assistant is ready (null: none reported yet). */
  pipeline: AssistantState | null;
  error: string | null;
  /** The microphone watchdog's report: no sound from the microphone (null: none). */
  microphoneProblem?: string | null;
}

export const INITIAL_TRAY_INPUT: TrayInput = { phase: 'starting', listening: true, pipeline: null, error: null };

/** The input after one app event (the same object when the event changes nothing the tray shows). */
export function nextTrayInput(input: TrayInput, event: AppEvent): TrayInput {
  if (event.type === 'status') {
    const { phase, listening, error, microphoneProblem } = event.status;
    if (phase === input.phase && listening === input.listening && error === input.error && microphoneProblem === (input.microphoneProblem ?? null)) return input;
    // A pipeline state from before a reload says nothing about the next pipeline.
    return { phase, listening, error, microphoneProblem, pipeline: phase === 'ready' ? input.pipeline : null };
  }
  if (event.type === 'pipeline' && event.event.type === 'state' && event.event.state !== input.pipeline) {
    return { ...input, pipeline: event.event.state };
  }
  return input;
}

/**
 * One state at a glance. Muted wins over listening, but not over an answer being thought or spoken
 * (muting closes the microphone; the answer goes on). Before the pipeline says anything: idle.
 */
export function trayState(input: TrayInput): TrayState {
  if (input.phase === 'error') return 'error';
  if (input.phase !== 'ready') return 'starting';
  // A stopped microphone while listening: "ready" would be a lie.
  if (input.microphoneProblem && input.listening) return 'error';
  const busy = input.pipeline === 'thinking' || input.pipeline === 'speaking';
  if (!input.listening && !busy) return 'muted';
  return input.pipeline ?? 'idle';
}

const STATE_TEXT: Readonly<Record<TrayState, string>> = {
  idle: 'ready',
  listening: 'listening',
  hearing: 'hearing you',
  thinking: 'thinking',
  speaking: 'speaking',
  starting: 'starting',
  error: 'not available',
  muted: 'microphone muted',
};

/** Windows cuts tray tooltips at 127 characters. */
const TOOLTIP_MAX = 127;

export interface TrayView {
  state: TrayState;
  muted: boolean;
  /** The shortcut in effect, as the platform writes it ('' = none). */
  shortcutLabel: string;
  /** Why the assistant is not available (the error state), or what it waits for (setup). */
  detail: string | null;
}

export function trayView(input: TrayInput, shortcutLabel: string): TrayView {
  const state = trayState(input);
  const detail =
    input.phase === 'error' ? input.error : input.phase === 'setup' ? 'open the window to download the models' : state === 'error' ? (input.microphoneProblem ?? null) : null;
  return { state, muted: !input.listening, shortcutLabel, detail };
}

export function trayTooltip(view: TrayView, appName: string): string {
  let text = `${appName}: ${STATE_TEXT[view.state]}`;
  if (view.detail) text += ` (${view.detail})`;
  else if (view.state === 'idle' && view.shortcutLabel) text += `, press ${view.shortcutLabel} to talk`;
  return text.length > TOOLTIP_MAX ? `${text.slice(0, TOOLTIP_MAX - 1)}…` : text;
}

export type TrayAction = 'talk' | 'mute' | 'show' | 'quit';

export type TrayMenuItem =
  | { kind: 'action'; action: TrayAction; label: string; enabled: boolean; checked?: boolean }
  | { kind: 'separator' };

/** Talk (with the shortcut), Mute microphone (a checkbox), Show window, then Quit. */
export function trayMenu(view: TrayView, appName: string): TrayMenuItem[] {
  const ready = view.state !== 'starting' && view.state !== 'error';
  return [
    { kind: 'action', action: 'talk', label: view.shortcutLabel ? `Talk (${view.shortcutLabel})` : 'Talk', enabled: ready },
    { kind: 'action', action: 'mute', label: 'Mute microphone', enabled: true, checked: view.muted },
    { kind: 'action', action: 'show', label: 'Show window', enabled: true },
    { kind: 'separator' },
    { kind: 'action', action: 'quit', label: `Quit ${appName}`, enabled: true },
  ];
}

// ---------------------------------------------------------------------------
// The icon: a disc in the state's colour with a white mark, drawn at 16 and 32 px (1x and 2x).
// On macOS a template image instead: black with alpha (the menu bar tints it), a ring and the mark.

/** The disc's colour per state, [r, g, b]. */
export const TRAY_COLORS: Readonly<Record<TrayState, readonly [number, number, number]>> = {
  idle: [0x4f, 0x5b, 0xd5], // the app icon's blue
  listening: [0x16, 0xa3, 0x4a],
  hearing: [0x22, 0xc5, 0x5e],
  thinking: [0xd9, 0x77, 0x06],
  speaking: [0x25, 0x63, 0xeb],
  starting: [0x9c, 0xa3, 0xaf],
  error: [0xdc, 0x26, 0x26],
  muted: [0x6b, 0x72, 0x80],
};

/** A segment with round ends in unit coordinates (0..1 across the icon); a dot when a = b. */
interface Stroke {
  ax: number;
  ay: number;
  bx: number;
  by: number;
  r: number;
}

const dot = (x: number, y: number, r: number): Stroke => ({ ax: x, ay: y, bx: x, by: y, r });
const bar = (x: number, top: number, bottom: number, r = 0.055): Stroke => ({ ax: x, ay: top, bx: x, by: bottom, r });
/** A microphone: the head, its stem and its foot. */
const MIC: readonly Stroke[] = [bar(0.5, 0.3, 0.47, 0.09), bar(0.5, 0.6, 0.7, 0.04), { ax: 0.39, ay: 0.72, bx: 0.61, by: 0.72, r: 0.04 }];

/** Each state's mark, kept within 0.3 of the centre so a ring of plain colour always shows around it. */
const MARKS: Readonly<Record<TrayState, readonly Stroke[]>> = {
  idle: [dot(0.5, 0.5, 0.11)],
  listening: MIC,
  hearing: [bar(0.33, 0.42, 0.58), bar(0.5, 0.3, 0.7), bar(0.67, 0.42, 0.58)],
  thinking: [dot(0.3, 0.5, 0.075), dot(0.5, 0.5, 0.075), dot(0.7, 0.5, 0.075)],
  speaking: [bar(0.29, 0.43, 0.57), bar(0.43, 0.33, 0.67), bar(0.57, 0.26, 0.74), bar(0.71, 0.38, 0.62)],
  starting: [],
  error: [bar(0.5, 0.27, 0.56, 0.07), dot(0.5, 0.72, 0.075)],
  muted: [...MIC, { ax: 0.3, ay: 0.3, bx: 0.7, by: 0.7, r: 0.05 }],
};

const DISC_RADIUS = 0.47;
/** The starting state is a ring: the disc without its middle. */
const RING_INNER = 0.32;

/** Distance from (x, y) to a stroke's edge, negative inside. */
function strokeDistance(x: number, y: number, s: Stroke): number {
  const dx = s.bx - s.ax;
  const dy = s.by - s.ay;
  const len2 = dx * dx + dy * dy;
  const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((x - s.ax) * dx + (y - s.ay) * dy) / len2));
  return Math.hypot(x - (s.ax + t * dx), y - (s.ay + t * dy)) - s.r;
}

/** How much of a pixel a shape covers, from its edge distance in pixels: a one-pixel ramp (anti-aliasing). */
function cover(distancePx: number): number {
  return Math.min(1, Math.max(0, 0.5 - distancePx));
}

export interface TrayBitmap {
  /** BGRA, premultiplied alpha, rows top to bottom: the layout nativeImage.createFromBitmap takes (Skia's N32). */
  buffer: Buffer;
  width: number;
  height: number;
}

/**
 * The icon for `state`, `size` pixels square. `template` (macOS): black with alpha, the shape of
 * a ring around the mark, since a template image carries no colour.
 */
export function trayIconBitmap(state: TrayState, size: number, template = false): TrayBitmap {
  const buffer = Buffer.alloc(size * size * 4);
  const [r, g, b] = template ? [0, 0, 0] : TRAY_COLORS[state];
  const marks = MARKS[state];
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      const x = (px + 0.5) / size;
      const y = (py + 0.5) / size;
      const fromCentre = Math.hypot(x - 0.5, y - 0.5);
      let disc = cover((fromCentre - DISC_RADIUS) * size);
      if (template || state === 'starting') disc = Math.min(disc, cover((RING_INNER - fromCentre) * size));
      let mark = 0;
      for (const s of marks) mark = Math.max(mark, cover(strokeDistance(x, y, s) * size));
      // In colour the mark is white over the disc; in a template, black like the ring.
      const alpha = Math.max(disc, mark);
      const white = template ? 0 : mark;
      const i = (py * size + px) * 4;
      const a = Math.round(alpha * 255);
      buffer[i] = Math.round((b + (255 - b) * white) * alpha);
      buffer[i + 1] = Math.round((g + (255 - g) * white) * alpha);
      buffer[i + 2] = Math.round((r + (255 - r) * white) * alpha);
      buffer[i + 3] = a;
    }
  }
  return { buffer, width: size, height: size };
}

/** The sizes drawn: 1x and 2x (HiDPI) of a 16-point tray icon. */
export const TRAY_ICON_SIZES = [
  { size: 16, scaleFactor: 1 },
  { size: 32, scaleFactor: 2 },
] as const;

/** macOS shows template images in the menu bar (tinted for light and dark); elsewhere colour. */
export function useTemplateIcon(platform: ShellPlatform): boolean {
  return platform === 'darwin';
}
