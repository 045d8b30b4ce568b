/** The window: conversation, controls and timers on the left; latency, endpoint tuning, settings, models, tools, memory and history on the right. */
import { useRef, useState, type KeyboardEvent } from 'react';
import { Controls } from './components/Controls';
import { FirstRun } from './components/FirstRun';
import { History } from './components/History';
import { Conversation } from './components/Conversation';
import { EndpointTuning } from './components/EndpointTuning';
import { Latency } from './components/Latency';
import { MemoryPanel } from './components/Memory';
import { ModelsPanel } from './components/ModelsPanel';
import { Notices } from './components/Notices';
import { SettingsPanel } from './components/SettingsPanel';
import { StatusBar } from './components/StatusBar';
import { Timers } from './components/Timers';
import { ToolConfirmation } from './components/ToolConfirmation';
import { ToolsPanel } from './components/ToolsPanel';
import { useUi } from './store';

const TABS = [
  { id: 'tuning', label: 'Endpointing', render: () => <EndpointTuning /> },
  { id: 'settings', label: 'Settings', render: () => <SettingsPanel /> },
  { id: 'models', label: 'Models', render: () => <ModelsPanel /> },
  { id: 'tools', label: 'Tools', render: () => <ToolsPanel /> },
  { id: 'memory', label: 'Memory', render: () => <MemoryPanel /> },
  { id: 'history', label: 'History', render: () => <History /> },
] as const;

type TabId = (typeof TABS)[number]['id'];

function Tabs() {
  const [active, setActive] = useState<TabId>('tuning');
  const refs = useRef<Record<string, HTMLButtonElement | null>>({});
  const onKey = (e: KeyboardEvent) => {
    const i = TABS.findIndex((t) => t.id === active);
    const next = e.key === 'ArrowRight' ? (i + 1) % TABS.length : e.key === 'ArrowLeft' ? (i + TABS.length - 1) % TABS.length : -1;
    if (next < 0) return;
    e.preventDefault();
    setActive(TABS[next]!.id);
    refs.current[TABS[next]!.id]?.focus();
  };
  const tab = TABS.find((t) => t.id === active)!;
  return (
    <section className="panel tabs">
      <div role="tablist" aria-label="Tuning and settings" onKeyDown={onKey}>
        {TABS.map((t) => (
          <button
            key={t.id}
            ref={(el) => {
              refs.current[t.id] = el;
            }}
            role="tab"
            type="button"
            id={`tab-${t.id}`}
            aria-selected={t.id === active}
            aria-controls={`panel-${t.id}`}
            tabIndex={t.id === active ? 0 : -1}
            data-testid={`tab-${t.id}`}
            onClick={() => setActive(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${tab.id}`} aria-labelledby={`tab-${tab.id}`} className="tabpanel">
        {tab.render()}
      </div>
    </section>
  );
}

function AudioGate({ onStart }: { onStart: () => void }) {
  const blocked = useUi((s) => s.audioBlocked);
  const error = useUi((s) => s.audioError);
  if (error) return <div className="notice notice-error" role="alert">{error}</div>;
  if (!blocked) return null;
  return (
    <div className="gate">
      <p>The browser needs a click before it plays sound or listens.</p>
      <button type="button" className="primary" onClick={onStart} data-testid="start-audio">
        Start talking
      </button>
    </div>
  );
}

function Conversations() {
  return (
    <main className="layout">
      <div className="left">
        <Conversation />
        <ToolConfirmation />
        <Controls />
        <Timers />
      </div>
      <div className="right">
        <Latency />
        <Tabs />
      </div>
    </main>
  );
}

export function App({ onStartAudio }: { onStartAudio: () => void }) {
  const connection = useUi((s) => s.connection);
  const message = useUi((s) => s.connectionMessage);
  const status = useUi((s) => s.status);
  return (
    <div className="app">
      <StatusBar />
      {connection === 'lost' && (
        <div className="notice notice-error" role="alert">
          {message}
        </div>
      )}
      {status?.phase === 'error' && status.error && (
        <div className="notice notice-error" role="alert" data-testid="status-error">
          {status.error}
        </div>
      )}
      <Notices />
      <AudioGate onStart={onStartAudio} />
      {status?.phase === 'setup' ? (
        <main className="setup-layout">
          <FirstRun />
        </main>
      ) : (
        <Conversations />
      )}
    </div>
  );
}
