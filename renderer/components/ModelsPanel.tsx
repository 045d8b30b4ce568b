/**
 * Which models are loaded, where the LLM runs, what to do when a model (an optional one included) is
 * missing, and what the browser applied to the microphone.
 */
import type { MicrophoneSettings } from '../../electron/ipc-contract';
import { backendLabel, KIND_LABELS, microphoneLines, modelLine } from '../model/labels';
import { contextInUse } from '../model/settings-words';
import { useUi } from '../store';
import { LlmServerSettings } from './LlmServer';

/**
 * The microphone as the browser opened it. The app asks for raw capture (it cancels its own echo and
 * sets its own gain); a browser that kept its own processing on is said plainly, as that changes what
 * the app's canceller hears.
 */
function MicrophoneInfo({ microphone }: { microphone: MicrophoneSettings | null }) {
  if (!microphone) {
    return (
      <dl className="llm-info" data-testid="microphone">
        <dt>Microphone</dt>
        <dd data-testid="microphone-line">not open yet</dd>
      </dl>
    );
  }
  const { line, notHonoured } = microphoneLines(microphone);
  return (
    <>
      <dl className="llm-info" data-testid="microphone">
        <dt>Microphone</dt>
        <dd data-testid="microphone-line">{line}</dd>
        {microphone.label && (
          <>
            <dt>Device</dt>
            <dd data-testid="microphone-device">{microphone.label}</dd>
          </>
        )}
      </dl>
      {notHonoured.map(({ level, text }) => (
        <div key={text} className={`notice mic-note${level === 'error' ? ' notice-error' : ''}`} role="status" data-testid="microphone-not-honoured">
          {text}
        </div>
      ))}
    </>
  );
}

export function ModelsPanel() {
  const status = useUi((s) => s.status);
  const askedContext = useUi((s) => s.settings?.llm.contextSize ?? null);
  if (!status) return <p className="empty">Connecting…</p>;
  return (
    <section className="models" aria-labelledby="models-title" data-testid="models">
      <h2 id="models-title" className="visually-hidden">
        Models
      </h2>
      {status.error && (
        <div className="notice notice-error" role="alert" data-testid="model-error">
          {status.error}
        </div>
      )}
      <ul className="model-list">
        {status.models.map((m) => {
          const line = modelLine(m);
          return (
            <li key={m.kind} className={`model model-${m.state}`} data-testid={`model-${m.kind}`}>
              <span className="model-kind">{KIND_LABELS[m.kind]}</span>
              <span className="model-name">
                {line.name}
                {m.layout && <span className="model-layout" data-testid={`model-layout-${m.kind}`}> ({m.layout})</span>}
              </span>
              <span className="model-state" aria-label={`state: ${m.state}`}>
                {line.state}
              </span>
              {m.state === 'loading' && <progress aria-label={`Loading ${KIND_LABELS[m.kind]}`} />}
              {/* An optional model that is missing or broken: what the assistant does without it, and how to get it. */}
              {m.detail && (
                <span className="model-detail" data-testid={`model-detail-${m.kind}`}>
                  {m.detail}
                </span>
              )}
            </li>
          );
        })}
      </ul>
      <MicrophoneInfo microphone={status.microphone} />
      <LlmServerSettings />
      {status.llm?.server && (
        <dl className="llm-info" data-testid="llm-server-info">
          <dt>LLM server</dt>
          <dd>{status.llm.server.baseUrl}</dd>
          <dt>Model</dt>
          <dd>{status.llm.server.model}</dd>
          <dt>If it fails</dt>
          <dd data-testid="llm-fallback">
            {status.llm.server.fallback
              ? `the local model ${status.llm.server.fallback} answers that turn`
              : 'no local language model is installed: a turn the server fails gets no answer (npm run models -- fetch adds one)'}
          </dd>
          <dt>API key</dt>
          <dd>{status.apiKey.stored ? `stored, ${status.apiKey.protection}` : 'none'}</dd>
        </dl>
      )}
      {status.llm && !status.llm.server && (
        <dl className="llm-info">
          <dt>LLM backend</dt>
          <dd data-testid="llm-backend">{backendLabel(status.llm.backend)}</dd>
          <dt>Layers on the GPU</dt>
          <dd>
            {status.llm.gpuLayers} of {status.llm.totalLayers}
          </dd>
          <dt>Context</dt>
          <dd data-testid="llm-context">{contextInUse(status.llm.contextSize, askedContext)}</dd>
          {status.llm.gpuDevices.length > 0 && (
            <>
              <dt>GPU</dt>
              <dd>{status.llm.gpuDevices.join(', ')}</dd>
            </>
          )}
          {status.llm.cpuReason && (
            <>
              <dt>Note</dt>
              <dd data-testid="llm-cpu-reason">{status.llm.cpuReason}</dd>
            </>
          )}
        </dl>
      )}
    </section>
  );
}
