/**
 * Endpoint tuning by looking: the last turns' VAD trace (speech probability per 32 ms window) with
 * the threshold line, where speech started and ended and where the turn was cut, what the end-of-turn
 * model said in each pause, and, dashed, where the current slider values would cut it. Moving a
 * slider redraws the dashed markers at once.
 */
import { useId, useMemo } from 'react';
import type { ModelStatus } from '../../electron/ipc-contract';
import { VAD_HYSTERESIS } from '../../electron/engines/vad-decision';
import { modelInUse, replayEndpointing, type Replay, type ReplaySettings, type VadPoint } from '../model/endpoint-replay';
import { formatMs } from '../model/latency';
import { traceAxis } from '../model/trace-axis';
import { useUi, type LiveTurn, type TurnCheckPoint } from '../store';
import { Slider } from './Slider';
import { useSetting } from './useSetting';
import type { EndReason } from '../../electron/pipeline/vocabulary';

const W = 600;
const H = 90;

interface Span {
  from: number;
  to: number;
}

/** "cut 600 ms after speech", or, when the model ended it, "ended by the model 210 ms after speech". */
function endedAfter(reason: EndReason, ms: number): string {
  return reason === 'turn-model' ? `ended by the model ${formatMs(ms)} after speech` : `cut ${formatMs(ms)} after speech`;
}

/**
 * The model's answers in this span, as labels over the plot (HTML, so the stretched SVG does not
 * distort the text): ✓ when the probability reaches the current threshold, … when it does not or
 * when the words held the pause whatever the model said (a dangling "the", "my", "um").
 */
function CheckLabels({ checks, span, turnThreshold }: { checks: TurnCheckPoint[]; span: Span; turnThreshold: number }) {
  return (
    <>
      {checks.map((c) => {
        const pct = ((c.atMs - span.from) / (span.to - span.from)) * 100;
        const finished = c.heldBy === null && c.probability >= turnThreshold;
        // Kept inside the plot near its edges.
        const shift = pct > 85 ? '-100%' : pct < 15 ? '0' : '-50%';
        return (
          <span
            key={`${c.turn}-${c.atMs}`}
            className={`turn-check-label ${finished ? 'finished' : 'unfinished'}`}
            style={{ left: `${pct}%`, transform: `translateX(${shift})` }}
            data-testid="turn-check"
            aria-label={`End-of-turn model at ${formatMs(c.atMs)}: ${c.probability.toFixed(2)}, ${finished ? 'finished' : 'not finished'} at threshold ${turnThreshold.toFixed(2)}${c.heldBy ? `, held: the words end in a dangling word ("${c.text}")` : ''}`}
          >
            {c.probability.toFixed(2)} {finished ? '✓' : '…'}
          </span>
        );
      })}
    </>
  );
}

interface TraceProps {
  trace: VadPoint[];
  span: Span;
  threshold: number;
  live: LiveTurn[];
  replay: Replay;
  checks: TurnCheckPoint[];
  /** The end-of-turn threshold, drawn when the model decides pauses; null when it does not. */
  turnThreshold: number | null;
  /** The threshold the check labels are read against (the slider's, even when the model is off). */
  labelThreshold: number;
  label: string;
  testId: string;
  /** Where the axis counts from, and what that point is called ("now", "0" for the end of speech). */
  zero: { atMs: number; label: string };
}

function Trace({ trace, span, threshold, live, replay, checks, turnThreshold, labelThreshold, label, testId, zero }: TraceProps) {
  const x = (t: number) => ((t - span.from) / (span.to - span.from)) * W;
  const y = (p: number) => H - p * H;
  const points = trace.filter((w) => w.t >= span.from && w.t <= span.to);
  const line = points.map((w) => `${x(w.t).toFixed(1)},${y(w.p).toFixed(1)}`).join(' ');
  const inSpan = (a: number, b: number) => b >= span.from && a <= span.to;
  const replayed = replay.turns.filter((t) => inSpan(t.startMs, t.endMs));
  const discarded = replay.discarded.filter((d) => inSpan(d.startMs, d.endMs));
  const liveHere = live.filter((t) => inSpan(t.startMs, t.endMs));
  const checksHere = checks.filter((c) => c.atMs >= span.from && c.atMs <= span.to);
  const axis = traceAxis(span, zero.atMs, zero.label);
  return (
    <figure className="trace" aria-label={label} data-testid={testId}>
      <div className="trace-plot">
        <svg viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" role="img" aria-label={label}>
          {axis.map((k) => (
            <line key={`g${k.label}`} className={k.zero ? 'trace-zero' : 'trace-grid'} x1={k.at * W} x2={k.at * W} y1={0} y2={H} />
          ))}
          {replayed.map((t, i) => (
            <rect key={`r${i}`} className="replay-speech" x={x(t.startMs)} y={0} width={Math.max(1, x(t.speechEndMs) - x(t.startMs))} height={H} />
          ))}
          {discarded.map((d, i) => (
            <rect key={`d${i}`} className="replay-discarded" x={x(d.startMs)} y={0} width={Math.max(1, x(d.endMs) - x(d.startMs))} height={H} />
          ))}
          <line className="threshold" x1={0} x2={W} y1={y(threshold)} y2={y(threshold)} />
          <line className="threshold-low" x1={0} x2={W} y1={y(threshold - VAD_HYSTERESIS)} y2={y(threshold - VAD_HYSTERESIS)} />
          {turnThreshold !== null && <line className="turn-threshold" x1={0} x2={W} y1={y(turnThreshold)} y2={y(turnThreshold)} />}
          <polyline className="probability" points={line} />
          {liveHere.map((t) => (
            <g key={`l${t.turn}`} className="live-marks">
              <line x1={x(t.startMs)} x2={x(t.startMs)} y1={0} y2={H} />
              <line x1={x(t.speechEndMs)} x2={x(t.speechEndMs)} y1={0} y2={H} />
              <line className="cut" x1={x(t.endMs)} x2={x(t.endMs)} y1={0} y2={H} />
            </g>
          ))}
          {checksHere.map((c) => (
            <g key={`k${c.turn}-${c.atMs}`} className={`turn-check ${c.heldBy === null && c.probability >= labelThreshold ? 'finished' : 'unfinished'}`}>
              {/* Full height: when it was asked shows even for a probability near 0. */}
              <line className="stem" x1={x(c.atMs)} x2={x(c.atMs)} y1={0} y2={H} />
              <line className="head" x1={x(c.atMs) - 5} x2={x(c.atMs) + 5} y1={y(c.probability)} y2={y(c.probability)} />
            </g>
          ))}
          {replayed.map((t, i) => (
            <line key={`c${i}`} className="replay-cut" x1={x(t.endMs)} x2={x(t.endMs)} y1={0} y2={H} />
          ))}
        </svg>
        <CheckLabels checks={checksHere} span={span} turnThreshold={labelThreshold} />
      </div>
      <div className="trace-axis" data-testid="trace-axis" aria-hidden="true">
        {axis.map((k) => (
          <span key={k.label} style={{ left: `${k.at * 100}%` }}>
            {k.label}
          </span>
        ))}
      </div>
      <figcaption>
        {label}
        {liveHere.length > 0 && ` · was ${endedAfter(liveHere[0]!.reason, liveHere[0]!.endMs - liveHere[0]!.speechEndMs)}`}
        {' · now: '}
        {replayed.length === 0
          ? 'no turn'
          : replayed.length === 1
            ? `${endedAfter(replayed[0]!.reason, replayed[0]!.endMs - replayed[0]!.speechEndMs)}${replayed[0]!.reason === 'max-length' ? ' (longest turn reached)' : ''}`
            : `split into ${replayed.length} turns`}
      </figcaption>
    </figure>
  );
}

/** The switch for asking the model; without a usable model it is disabled and says what decides instead. */
function TurnModelSwitch({ model }: { model: ModelStatus | undefined }) {
  const [value, change] = useSetting<boolean>('endpointing.turnModel');
  const id = useId();
  const noteId = useId();
  if (value === undefined) return null;
  const loaded = model?.state === 'ready';
  const note = loaded
    ? 'Asked once in each pause whether your sentence sounds finished.'
    : model?.state === 'error'
      ? 'The end-of-turn model could not be used: pauses are judged by silence alone.'
      : 'No end-of-turn model: pauses are judged by silence alone.';
  return (
    <div className="slider turn-model-switch">
      <div className="toggle-row">
        <label htmlFor={id}>Ask the end-of-turn model</label>
        <button
          id={id}
          type="button"
          role="switch"
          aria-checked={value}
          aria-describedby={noteId}
          className="switch"
          disabled={!loaded}
          data-testid="toggle-endpointing.turnModel"
          onClick={() => change(!value)}
        >
          <span className="knob" />
        </button>
      </div>
      <p id={noteId} className="hint" data-testid="turn-model-note">
        {note}
      </p>
    </div>
  );
}

export function EndpointTuning() {
  const trace = useUi((s) => s.trace);
  const live = useUi((s) => s.liveTurns);
  const entries = useUi((s) => s.entries);
  const checks = useUi((s) => s.turnChecks);
  const turnModelStatus = useUi((s) => s.status?.models.find((m) => m.kind === 'turn'));
  const loaded = turnModelStatus?.state === 'ready';
  const [vadThreshold] = useSetting<number>('endpointing.vadThreshold');
  const [minSpeechMs] = useSetting<number>('endpointing.minSpeechMs');
  const [silenceMs] = useSetting<number>('endpointing.silenceMs');
  const [maxTurnMs] = useSetting<number>('endpointing.maxTurnMs');
  const [turnModel] = useSetting<boolean>('endpointing.turnModel');
  const [turnCheckMs] = useSetting<number>('endpointing.turnCheckMs');
  const [turnThreshold] = useSetting<number>('endpointing.turnThreshold');
  const [maxPauseMs] = useSetting<number>('endpointing.maxPauseMs');
  const values = [vadThreshold, minSpeechMs, silenceMs, maxTurnMs, turnModel, turnCheckMs, turnThreshold, maxPauseMs];
  const settings: ReplaySettings | null = values.some((v) => v === undefined)
    ? null
    : { vadThreshold: vadThreshold!, minSpeechMs: minSpeechMs!, silenceMs: silenceMs!, maxTurnMs: maxTurnMs!, turnModel: turnModel!, turnCheckMs: turnCheckMs!, turnThreshold: turnThreshold!, maxPauseMs: maxPauseMs! };
  const replay = useMemo(
    () => (settings ? replayEndpointing(trace, settings, { loaded, checks }) : { turns: [], discarded: [] }),
    // `settings` is a new object every render: the values it is built from are the dependencies.
    [trace, checks, loaded, ...values],
  );
  const inUse = settings !== null && modelInUse(settings, { loaded });
  const last = trace[trace.length - 1];
  const recent = live.filter((t) => !last || t.endMs > last.t - 60000).slice(-3).reverse();
  const traceProps = settings && {
    threshold: settings.vadThreshold,
    live,
    replay,
    checks,
    turnThreshold: inUse ? settings.turnThreshold : null,
    labelThreshold: settings.turnThreshold,
  };

  return (
    <section className="tuning" aria-labelledby="tuning-title">
      <h2 id="tuning-title">Endpointing</h2>
      <div className="tuning-grid">
        <div className="traces" data-testid="vad-traces">
          <p className="legend-line">
            <span className="key live">solid: what happened</span> <span className="key replay">dashed and shaded: with these settings</span>
            <span className="key">time: seconds from the end of speech (0), live: before now</span>
            {(inUse || checks.length > 0) && <span className="key turn-model">purple: end-of-turn model (✓ finished, … not yet)</span>}
          </p>
          {traceProps && last && <Trace trace={trace} span={{ from: last.t - 8000, to: last.t }} {...traceProps} label="Live, last 8 s" testId="live-trace" zero={{ atMs: last.t, label: 'now' }} />}
          {traceProps &&
            recent.map((t) => {
              const replayEnd = Math.max(t.endMs, ...replay.turns.filter((r) => r.startMs < t.endMs + 2000 && r.endMs > t.startMs).map((r) => r.endMs));
              return (
                <Trace
                  key={t.turn}
                  trace={trace}
                  span={{ from: t.startMs - 700, to: Math.min(replayEnd + 500, t.startMs + 20000) }}
                  {...traceProps}
                  label={`“${entries.find((e) => e.turn === t.turn)?.user ?? '…'}”`}
                  testId="turn-trace"
                  zero={{ atMs: t.speechEndMs, label: '0' }}
                />
              );
            })}
          {!last && <p className="empty">Speak, and the speech probability appears here.</p>}
        </div>
        <div className="sliders">
          <Slider path="endpointing.vadThreshold" hint="Speech probability that counts as speech (the solid line)." />
          <TurnModelSwitch model={turnModelStatus} />
          {inUse && (
            <>
              <Slider path="endpointing.turnThreshold" hint="At or above this the sentence is finished and the turn ends (the purple line)." />
              <Slider path="endpointing.turnCheckMs" hint="How far into a pause the model is asked; a finished turn ends here." />
              <Slider path="endpointing.maxPauseMs" hint="A pause in a sentence that sounds unfinished ends the turn after this long." />
            </>
          )}
          <Slider path="endpointing.silenceMs" hint={inUse ? 'Ends a pause only without the model (switched off, or a check that failed).' : 'How long a pause ends your turn.'} />
          <Slider path="endpointing.minSpeechMs" hint="Shorter sounds (coughs, clicks) start no turn." />
          <Slider path="endpointing.prefixPaddingMs" />
          <Slider path="endpointing.maxTurnMs" />
        </div>
      </div>
    </section>
  );
}
