/**
 * The renderer's entry: connects to the assistant (Electron IPC when the preload exposed
 * `window.assistant`, else the WebSocket bridge that served this page), mirrors its state into the
 * store, and starts the microphone and the player.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import type { AssistantApi, Snapshot } from '../electron/ipc-contract';
import { api, setApi } from './api/current';
import { connectWebSocketApi } from './api/web-socket-api';
import { App } from './App';
import { MicrophoneKeeper } from './audio/microphone-keeper';
import { startPlayer, type Player } from './audio/player';
import type { VadPoint } from './model/endpoint-replay';
import { isHidden, whileVisible } from './model/while-visible';
import { loadCurrentConversation, mergeRestored, wasReloaded } from './model/restore-conversation';
import { useUi } from './store';
import './styles.css';

let keeper: MicrophoneKeeper | null = null;
let player: Player | null = null;
/** About 64 s of VAD windows: what the trace keeps, so a hidden window holds no more than that. */
const HELD_TRACE_POINTS = 2000;
// 50 level updates a second would re-render the header for nobody while the window is in the tray.
const publishLevel = whileVisible<number>(document, (rms) => useUi.setState({ micLevel: rms }));

async function startAudio(a: AssistantApi): Promise<void> {
  try {
    player ??= await startPlayer(a);
  } catch (e) {
    useUi.setState({ audioError: (e as Error).message });
    return;
  }
  keeper ??= new MicrophoneKeeper(a, publishLevel, (error) => useUi.setState({ audioError: error }));
  await keeper.open();
  const mic = keeper.current;
  if (!mic) return;
  if (!mic.running || !player.running) {
    // A plain browser holds audio until the user interacts with the page.
    await Promise.all([mic.resume(), player.resume()]).catch(() => undefined);
  }
  useUi.setState({ audioBlocked: !mic.running || !player.running, audioError: null });
}

async function boot(): Promise<void> {
  let a: AssistantApi;
  try {
    a =
      window.assistant ??
      (await connectWebSocketApi(
        (reason) => useUi.setState({ connection: 'lost', connectionMessage: reason }),
        // Events sent while the connection was down were missed: the state is read again.
        () => void loadSnapshot(api()),
      ));
  } catch (e) {
    useUi.setState({ connection: 'lost', connectionMessage: (e as Error).message });
    return;
  }
  setApi(a);
  // VAD windows arrive ~31 times a second: batched into the store ten times a second.
  let trace: VadPoint[] = [];
  let gainDb = 0;
  a.onEvent((e) => {
    if (e.type === 'pipeline' && e.event.type === 'vad') {
      trace.push({ t: e.event.t, p: e.event.probability });
      gainDb = e.event.gainDb;
    } else if (e.type === 'microphone-restart') void keeper?.reopen();
    else useUi.getState().apply(e);
  });
  setInterval(() => {
    // Hidden: the trace is held (the last minute of it) and drawn when the window is shown again.
    if (isHidden(document)) {
      if (trace.length > HELD_TRACE_POINTS) trace = trace.slice(-HELD_TRACE_POINTS);
      return;
    }
    if (gainDb !== useUi.getState().inputGainDb) useUi.setState({ inputGainDb: gainDb });
    if (trace.length === 0) return;
    useUi.getState().addTrace(trace);
    trace = [];
  }, 100);
  const snapshot = await loadSnapshot(a);
  // A reloaded window gets this run's conversation back from the history (turns that arrive live meanwhile are kept).
  if (wasReloaded(performance)) {
    void loadCurrentConversation(a)
      .then((restored) => restored.length > 0 && useUi.setState((s) => ({ entries: mergeRestored(s.entries, restored) })))
      .catch(() => undefined);
  }
  for (const n of snapshot.notices) useUi.getState().notify('error', n);
  await startAudio(a);
}

async function loadSnapshot(a: AssistantApi): Promise<Snapshot> {
  const snapshot = await a.request({ type: 'get-snapshot' });
  useUi.setState({ connection: 'connected', settings: snapshot.settings, status: snapshot.status, timers: snapshot.timers, state: snapshot.state, memory: snapshot.memory });
  return snapshot;
}

const root = createRoot(document.getElementById('root')!);
root.render(
  <StrictMode>
    <App
      onStartAudio={() => {
        void Promise.all([keeper?.current?.resume(), player?.resume()]).then(() => useUi.setState({ audioBlocked: false }));
      }}
    />
  </StrictMode>,
);
void boot();
