/** The header: what the assistant is doing now, the microphone level, and where the LLM runs. */
import type { AppStatus } from '../../electron/ipc-contract';
import type { AssistantState } from '../../electron/pipeline/events';
import { inputGainLabel, llmLine, MIC_METER_CAPTION, micMeter } from '../model/labels';
import { useUi, type UiState } from '../store';

const LABELS = {
  idle: 'Idle',
  listening: 'Listening',
  hearing: 'Hearing you',
  thinking: 'Thinking',
  speaking: 'Speaking',
} as const;

function stateLabel(connection: UiState['connection'], status: AppStatus | null, state: AssistantState): string {
  if (connection === 'lost') return 'Disconnected';
  if (connection === 'connecting') return 'Connecting…';
  if (!status || status.phase === 'starting' || status.phase === 'loading') return 'Loading models…';
  if (status.phase === 'setup') return 'Needs its models';
  if (status.phase === 'error') return 'Not available';
  return status.listening ? LABELS[state] : 'Microphone off';
}

export function StatusBar() {
  const state = useUi((s) => s.state);
  const status = useUi((s) => s.status);
  const listening = status?.listening ?? true;
  const level = useUi((s) => s.micLevel);
  const gain = inputGainLabel(useUi((s) => s.inputGainDb));
  const connection = useUi((s) => s.connection);
  const ready = status?.phase === 'ready' && connection === 'connected';
  const label = stateLabel(connection, status, state);
  const shown = ready && listening ? state : 'idle';
  const meter = micMeter(level, listening);
  return (
    <header className="statusbar">
      <h1>Local Voice Assistant</h1>
      <div className={`state state-${shown}`} role="status" aria-live="polite" data-testid="assistant-state" data-state={ready ? state : status?.phase ?? 'starting'}>
        <span className="state-dot" aria-hidden="true" />
        {label}
      </div>
      {/* A bar alone does not say what it measures: a caption names it for the eye, the meter's name in full for a screen reader. */}
      <div className="mic-level">
        <span className="mic-caption" aria-hidden="true">
          {MIC_METER_CAPTION}
        </span>
        <div className="meter" role="meter" aria-label="Microphone level" aria-valuemin={-60} aria-valuemax={0} aria-valuenow={meter.db} aria-valuetext={meter.text} title="Microphone level" data-testid="mic-meter">
          <span style={{ transform: `scaleX(${meter.fill})` }} />
        </div>
      </div>
      {listening && gain && (
        <span className="meter-gain" data-testid="input-gain" title="A quiet microphone: the assistant raises its level by this much before listening">
          {gain}
        </span>
      )}
      {status?.llm && (
        <span className="backend" data-testid="llm-line" title={status.llm.server ? status.llm.server.baseUrl : status.llm.gpuDevices.join(', ')}>
          {llmLine(status.llm)}
        </span>
      )}
    </header>
  );
}
