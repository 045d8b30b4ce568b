/**
 * Endpoint tuning by looking: the last turns' VAD trace (speech probability per 32 ms window) with
 * the threshold line, where speech started and ended and where the turn was cut, and, dashed, where
 * the current slider values would cut it. Moving a slider redraws the dashed markers at once.
 */
import { useMemo } from 'react';
import { VAD_HYSTERESIS } from '../../electron/pipeline/vad-decision';
import { replayEndpointing, type Replay, type ReplaySettings, type VadPoint } from '../model/endpoint-replay';
import { formatMs } from '../model/latency';
import { useUi, type LiveTurn } from '../store';
import { Slider } from './Slider';
import { useSetting } from './useSetting';

const W = 600;
const H = 90;

interface Span {
  from: number;
  to: number;
}

function Trace({ trace, span, threshold, live, replay, label, testId }: { trace: VadPoint[]; span: Span; threshold: number; live: LiveTurn[]; replay: Replay; label: string; testId: string }) {
  const x = (t: number) => ((t - span.from) / (span.to - span.from)) * W;
  const y = (p: number) => H - p * H;
  const points = trace.filter((w) => w.t >= span.from && w.t <= span.to);
  const line = points.map((w) => `${x(w.t).toFixed(1)},${y(w.p).toFixed(1)}`).join(' ');
  const inSpan = (a: number, b: number) => b >= span.from && a <= span.to;
  const replayed = replay.turns.filter((t) => inSpan(t.startMs, t.endMs));
  const discarded = replay.discarded.filter((d) => inSpan(d.startMs, d.endMs));
  const liveHere = live.filter((t) => inSpan(t.startMs, t.endMs));
  return (
    <figure className="trace" aria-label={label} data-testid={testId}>
      <svg viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" role="img" aria-label={label}>
        {replayed.map((t, i) => (
          <rect key={`r${i}`} className="replay-speech" x={x(t.startMs)} y={0} width={Math.max(1, x(t.speechEndMs) - x(t.startMs))} height={H} />
        ))}
        {discarded.map((d, i) => (
          <rect key={`d${i}`} className="replay-discarded" x={x(d.startMs)} y={0} width={Math.max(1, x(d.endMs) - x(d.startMs))} height={H} />
        ))}
        <line className="threshold" x1={0} x2={W} y1={y(threshold)} y2={y(threshold)} />
        <line className="threshold-low" x1={0} x2={W} y1={y(threshold - VAD_HYSTERESIS)} y2={y(threshold - VAD_HYSTERESIS)} />
        <polyline className="probability" points={line} />
        {liveHere.map((t) => (
          <g key={`l${t.turn}`} className="live-marks">
            <line x1={x(t.startMs)} x2={x(t.startMs)} y1={0} y2={H} />
            <line x1={x(t.speechEndMs)} x2={x(t.speechEndMs)} y1={0} y2={H} />
            <line className="cut" x1={x(t.endMs)} x2={x(t.endMs)} y1={0} y2={H} />
          </g>
        ))}
        {replayed.map((t, i) => (
          <line key={`c${i}`} className="replay-cut" x1={x(t.endMs)} x2={x(t.endMs)} y1={0} y2={H} />
        ))}
      </svg>
      <figcaption>
        {label}
        {liveHere.length > 0 && ` · was cut ${formatMs(liveHere[0]!.endMs - liveHere[0]!.speechEndMs)} after speech`}
        {' · now: '}
        {replayed.length === 0
          ? 'no turn'
          : replayed.length === 1
            ? `cut ${formatMs(replayed[0]!.endMs - replayed[0]!.speechEndMs)} after speech${replayed[0]!.reason === 'max-length' ? ' (longest turn reached)' : ''}`
            : `split into ${replayed.length} turns`}
      </figcaption>
    </figure>
  );
}

export function EndpointTuning() {
  const trace = useUi((s) => s.trace);
  const live = useUi((s) => s.liveTurns);
  const entries = useUi((s) => s.entries);
  const [vadThreshold] = useSetting<number>('endpointing.vadThreshold');
  const [minSpeechMs] = useSetting<number>('endpointing.minSpeechMs');
  const [silenceMs] = useSetting<number>('endpointing.silenceMs');
  const [maxTurnMs] = useSetting<number>('endpointing.maxTurnMs');
  const settings: ReplaySettings | null =
    vadThreshold === undefined || minSpeechMs === undefined || silenceMs === undefined || maxTurnMs === undefined ? null : { vadThreshold, minSpeechMs, silenceMs, maxTurnMs };
  const replay = useMemo(() => (settings ? replayEndpointing(trace, settings) : { turns: [], discarded: [] }), [trace, vadThreshold, minSpeechMs, silenceMs, maxTurnMs]);
  const last = trace[trace.length - 1];
  const recent = live.filter((t) => !last || t.endMs > last.t - 60000).slice(-3).reverse();

  return (
    <section className="tuning" aria-labelledby="tuning-title">
      <h2 id="tuning-title">Endpointing</h2>
      <div className="tuning-grid">
        <div className="traces" data-testid="vad-traces">
          <p className="legend-line">
            <span className="key live">solid: what happened</span> <span className="key replay">dashed and shaded: with these settings</span>
          </p>
          {settings && last && (
            <Trace trace={trace} span={{ from: last.t - 8000, to: last.t }} threshold={settings.vadThreshold} live={live} replay={replay} label="Live, last 8 s" testId="live-trace" />
          )}
          {settings &&
            recent.map((t) => {
              const replayEnd = Math.max(t.endMs, ...replay.turns.filter((r) => r.startMs < t.endMs + 2000 && r.endMs > t.startMs).map((r) => r.endMs));
              return <Trace key={t.turn} trace={trace} span={{ from: t.startMs - 700, to: Math.min(replayEnd + 500, t.startMs + 20000) }} threshold={settings.vadThreshold} live={live} replay={replay} label={`“${entries.find((e) => e.turn === t.turn)?.user ?? '…'}”`} testId="turn-trace" />;
            })}
          {!last && <p className="empty">Speak, and the speech probability appears here.</p>}
        </div>
        <div className="sliders">
          <Slider path="endpointing.vadThreshold" hint="Speech probability that counts as speech (the solid line)." />
          <Slider path="endpointing.silenceMs" hint="How long a pause ends your turn." />
          <Slider path="endpointing.minSpeechMs" hint="Shorter sounds (coughs, clicks) start no turn." />
          <Slider path="endpointing.prefixPaddingMs" />
          <Slider path="endpointing.maxTurnMs" />
        </div>
      </div>
    </section>
  );
}
