/**
 * The renderer's state, pushed from main: status, settings, the conversation, turn reports, the
 * VAD trace, the end-of-turn model's checks, the timers and the memory. Components read it; only `apply` (events) and the actions below change it.
 */
import { create } from 'zustand';
import type { AppEvent, AppStatus, FileProgress, MemoryView } from '../electron/ipc-contract';
import type { AssistantState, PipelineEvent } from '../electron/pipeline/events';
import type { TimerView } from '../electron/timers/timer-view';
import type { TurnReport } from '../electron/pipeline/report';
import type { Settings } from '../electron/settings/schema';
import type { VadPoint } from './model/endpoint-replay';
import type { EndReason, HeldBy } from '../electron/pipeline/vocabulary';

export interface ConversationEntry {
  /** The pipeline's turn index. */
  turn: number;
  user: string;
  /** The user's words are still being recognized. */
  userFinal: boolean;
  assistant: string;
  /** Set when the answer was cut off: the part the user heard. */
  heard: string | null;
  holdingPhrase: string | null;
  /** Acknowledgements the user said over the answer ("mm-hmm"): shown quietly under it. */
  backchannels: string[];
  report: TurnReport | null;
}

export interface Notice {
  id: number;
  level: 'info' | 'error';
  message: string;
}

/** Live turn boundaries as the pipeline decided them (for the tuning view's markers). */
export interface LiveTurn {
  turn: number;
  startMs: number;
  speechEndMs: number;
  endMs: number;
  reason: EndReason;
}

/** One answer of the end-of-turn model: asked at `atMs` (pipeline clock) in a pause of turn `turn`; `heldBy`: the words held the pause whatever it said. */
export interface TurnCheckPoint {
  turn: number;
  atMs: number;
  probability: number;
  text: string;
  heldBy: HeldBy | null;
}

/** About 64 s of 32 ms windows. */
const TRACE_POINTS = 2000;
/** At most one check per pause: far more than 64 s of trace can hold. */
const TURN_CHECKS = 200;
const MAX_NOTICES = 4;

export interface UiState {
  connection: 'connecting' | 'connected' | 'lost';
  connectionMessage: string;
  status: AppStatus | null;
  settings: Settings | null;
  state: AssistantState;
  entries: ConversationEntry[];
  reports: TurnReport[];
  /** The turn whose answer has started playing, as it stood then (its final report comes in `reports` when it ends). */
  started: TurnReport | null;
  liveTurns: LiveTurn[];
  trace: VadPoint[];
  turnChecks: TurnCheckPoint[];
  notices: Notice[];
  /** Timers and alarms pending or ringing (from the snapshot, then each `timers` event). */
  timers: TimerView[];
  /** The remembered facts (from the snapshot, then each `memory` event); null until the snapshot. */
  memory: MemoryView | null;
  micLevel: number;
  /** The pipeline's input gain (dB): how much a quiet microphone is being raised. */
  inputGainDb: number;
  /** First-run download progress by "model/file". */
  downloads: Record<string, FileProgress>;
  /** The browser is holding audio until the user clicks (autoplay policy). */
  audioBlocked: boolean;
  audioError: string | null;
  /** The last wake-phrase decision (wake-phrase mode), for the window. */
  wake: Extract<PipelineEvent, { type: 'wake-phrase' }> | null;
  /** The words of the last utterance the recognizer finished (pipeline time `t`), for the wake phrase check. */
  lastHeard: { t: number; text: string } | null;
  apply(e: AppEvent): void;
  addTrace(points: VadPoint[]): void;
  notify(level: Notice['level'], message: string): void;
  dismiss(id: number): void;
}

let noticeId = 0;

/** Adds or updates the live marks of one turn (its report refines what end-of-turn said). */
function withLiveTurn(turns: LiveTurn[], t: LiveTurn): LiveTurn[] {
  return [...turns.filter((x) => x.turn !== t.turn), t].sort((a, b) => a.turn - b.turn).slice(-50);
}

function upsert(entries: ConversationEntry[], turn: number, patch: (e: ConversationEntry) => Partial<ConversationEntry>): ConversationEntry[] {
  const i = entries.findIndex((e) => e.turn === turn);
  const base: ConversationEntry = i >= 0 ? entries[i]! : { turn, user: '', userFinal: false, assistant: '', heard: null, holdingPhrase: null, backchannels: [], report: null };
  const next = { ...base, ...patch(base) };
  if (i < 0) return [...entries, next].slice(-200);
  const copy = entries.slice();
  copy[i] = next;
  return copy;
}

export const useUi = create<UiState>()((set, get) => ({
  connection: 'connecting',
  connectionMessage: '',
  status: null,
  settings: null,
  state: 'listening',
  entries: [],
  reports: [],
  started: null,
  liveTurns: [],
  trace: [],
  turnChecks: [],
  notices: [],
  timers: [],
  memory: null,
  micLevel: 0,
  inputGainDb: 0,
  downloads: {},
  audioBlocked: false,
  audioError: null,
  wake: null,
  lastHeard: null,

  apply(e) {
    switch (e.type) {
      case 'status':
        set({ status: e.status });
        return;
      case 'settings':
        set({ settings: e.settings });
        return;
      case 'notice':
        get().notify(e.level, e.message);
        return;
      case 'download':
        set((s) => ({ downloads: { ...s.downloads, [`${e.progress.modelId}/${e.progress.file}`]: e.progress } }));
        return;
      case 'history':
        // The History tab asks for what it shows; the store keeps nothing of it.
        return;
      case 'microphone-restart':
        // The microphone's keeper (audio/microphone-keeper.ts) acts on it.
        return;
      case 'pipeline':
        break;
    }
    const p = e.event;
    switch (p.type) {
      case 'state':
        set({ state: p.state });
        break;
      case 'partial':
        set((s) => ({ entries: upsert(s.entries, p.turn, (x) => (x.userFinal ? {} : { user: p.text })) }));
        break;
      case 'final':
        set((s) => ({
          entries: upsert(s.entries, p.turn, () => ({ user: p.text, userFinal: true })),
          // In wake-phrase mode the request's words come without the phrase: its own event said them whole.
          lastHeard: s.settings?.mode === 'wake-phrase' ? s.lastHeard : { t: p.t, text: p.text },
        }));
        break;
      case 'answer-delta':
        set((s) => ({ entries: upsert(s.entries, p.turn, (x) => ({ assistant: x.assistant + p.text })) }));
        break;
      case 'holding-phrase':
        set((s) => ({ entries: upsert(s.entries, p.turn, () => ({ holdingPhrase: p.text })) }));
        break;
      case 'interrupted':
        set((s) => ({ entries: upsert(s.entries, p.turn, () => ({ heard: p.heardText })) }));
        break;
      case 'backchannel':
        // The acknowledgement's words were shown live as a turn of their own: they belong under the answer.
        set((s) => {
          const rest = s.entries.filter((x) => x.turn !== p.speechTurn || x.turn === p.turn || x.report !== null);
          return { entries: p.turn < 0 ? rest : upsert(rest, p.turn, (x) => ({ backchannels: [...x.backchannels, p.text].slice(-20) })) };
        });
        break;
      case 'wake-phrase': {
        const said = p.state === 'closed' ? null : { t: p.t, text: [p.heard, p.text].filter(Boolean).join(' ') };
        // Words not meant for the assistant, or the phrase alone, were shown live as a turn: gone.
        const drop = p.state === 'ignored' || p.state === 'listening';
        set((s) => ({ entries: drop ? s.entries.filter((x) => x.turn !== p.turn || x.report !== null) : s.entries, wake: p, lastHeard: said ?? s.lastHeard }));
        break;
      }
      case 'merged':
        // Its words continue in the next turn, which carries them.
        set((s) => ({ entries: s.entries.filter((x) => x.turn !== p.turn) }));
        break;
      case 'answer-start':
        set({ started: p.report });
        break;
      case 'turn': {
        const r = p.report;
        set((s) => ({
          started: s.started?.index === r.index ? null : s.started,
          entries: upsert(s.entries, p.turn, () => ({
            user: r.userText,
            userFinal: true,
            assistant: r.assistantText,
            heard: r.interrupted ? r.heardText : null,
            report: r,
          })),
          reports: [...s.reports, r].slice(-500),
          liveTurns: withLiveTurn(s.liveTurns, { turn: p.turn, startMs: r.timings.speechStartMs, speechEndMs: r.timings.speechEndMs, endMs: r.timings.endOfTurnMs, reason: r.endReason }),
        }));
        break;
      }
      case 'end-of-turn':
        // Marked as soon as it is decided, so tuning shows the cut before the answer has played.
        set((s) => ({ liveTurns: withLiveTurn(s.liveTurns, { turn: p.turn, startMs: p.speechStartMs, speechEndMs: p.speechEndMs, endMs: p.t, reason: p.reason }) }));
        break;
      case 'timers':
        set({ timers: p.timers });
        break;
      case 'timer':
        // Shown ringing at once; the `timers` event that follows is the full list.
        set((s) => ({ timers: s.timers.map((t) => (t.id === p.id ? { ...t, ringing: true } : t)) }));
        break;
      case 'memory':
        set({ memory: p.memory });
        break;
      case 'turn-check':
        set((s) => ({ turnChecks: [...s.turnChecks, { turn: p.turn, atMs: p.atMs, probability: p.probability, text: p.text, heldBy: p.heldBy }].slice(-TURN_CHECKS) }));
        break;
      case 'error':
        get().notify('error', p.message);
        break;
      case 'notice':
        get().notify('info', p.message);
        break;
      default:
        break;
    }
  },

  addTrace(points) {
    if (points.length) set((s) => ({ trace: [...s.trace, ...points].slice(-TRACE_POINTS) }));
  },

  notify(level, message) {
    set((s) => {
      // The same message again (a repeated failure) is shown once.
      if (s.notices.some((n) => n.message === message)) return {};
      return { notices: [...s.notices, { id: ++noticeId, level, message }].slice(-MAX_NOTICES) };
    });
  },

  dismiss(id) {
    set((s) => ({ notices: s.notices.filter((n) => n.id !== id) }));
  },
}));
