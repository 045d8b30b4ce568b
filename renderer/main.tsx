/**
 * Placeholder page: shows the assistant's state and the last turn, from pipeline events received
 * through `window.assistant`. The real UI (microphone capture, playback, settings) comes later.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { create } from 'zustand';
import type { AssistantState, PipelineEvent } from '../electron/pipeline/events';

interface View {
  state: AssistantState | 'starting';
  turn: number;
  userText: string;
  assistantText: string;
  /** The latest notice or error, one line. */
  message: string;
  isError: boolean;
  apply(e: PipelineEvent): void;
}

const useView = create<View>()((set) => ({
  state: 'starting',
  turn: -1,
  userText: '',
  assistantText: '',
  message: '',
  isError: false,
  apply(e) {
    switch (e.type) {
      case 'state':
        set({ state: e.state });
        break;
      case 'partial':
      case 'final':
        set((v) => (v.turn === e.turn ? { userText: e.text } : { turn: e.turn, userText: e.text, assistantText: '' }));
        break;
      case 'answer-delta':
        set((v) => (v.turn === e.turn ? { assistantText: v.assistantText + e.text } : { turn: e.turn, assistantText: e.text }));
        break;
      case 'turn':
        set({ userText: e.report.userText, assistantText: e.report.interrupted ? `${e.report.heardText} …` : e.report.assistantText });
        break;
      case 'notice':
        set({ message: e.message, isError: false });
        break;
      case 'error':
        set({ message: e.message, isError: true });
        break;
      default:
        break;
    }
  },
}));

if (window.assistant) window.assistant.onEvent((e) => useView.getState().apply(e));

function App() {
  const v = useView();
  if (!window.assistant) return <p>This page runs inside the Local Voice Assistant app.</p>;
  return (
    <main style={{ fontFamily: 'system-ui, sans-serif', maxWidth: 640, margin: '2rem auto', lineHeight: 1.5 }}>
      <h1 style={{ fontSize: '1.4rem' }}>Local Voice Assistant</h1>
      <p>
        State: <strong>{v.state === 'starting' ? 'starting…' : v.state}</strong>
      </p>
      {v.message && <p style={{ color: v.isError ? '#b00020' : '#555' }}>{v.message}</p>}
      <p>
        <strong>You:</strong> {v.userText || '—'}
      </p>
      <p>
        <strong>Assistant:</strong> {v.assistantText || '—'}
      </p>
    </main>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
