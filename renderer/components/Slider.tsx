/** A labelled slider for one numeric setting, built from SETTINGS_RANGES (min, max, step, unit). */
import { useId } from 'react';
import { SETTINGS_RANGES, type NumericSettingPath } from '../../electron/settings/schema';
import { useSetting } from './useSetting';

function format(value: number, unit: string, step: number): string {
  const digits = step < 1 ? Math.max(0, -Math.floor(Math.log10(step))) : 0;
  const text = value.toFixed(digits);
  if (unit === 'ms' && value >= 1000) return `${(value / 1000).toFixed(value % 1000 === 0 ? 0 : 2)} s`;
  return unit ? `${text} ${unit}` : text;
}

export function Slider({ path, hint }: { path: NumericSettingPath; hint?: string }) {
  const r = SETTINGS_RANGES[path];
  const id = useId();
  const [value, change] = useSetting<number | 'auto'>(path);
  if (value === undefined) return null;
  const numeric = typeof value === 'number' ? value : r.min;
  return (
    <div className="slider">
      <div className="slider-head">
        <label htmlFor={id}>{r.label}</label>
        <output htmlFor={id} data-testid={`value-${path}`}>
          {value === 'auto' ? 'auto' : format(numeric, r.unit, r.step)}
        </output>
      </div>
      <input
        id={id}
        type="range"
        min={r.min}
        max={r.max}
        step={r.step}
        value={numeric}
        data-testid={`slider-${path}`}
        aria-valuetext={value === 'auto' ? 'auto' : format(numeric, r.unit, r.step)}
        onChange={(e) => change(Number(e.currentTarget.value))}
      />
      {hint && <p className="hint">{hint}</p>}
    </div>
  );
}

export function Toggle({ path, label, hint }: { path: string; label: string; hint?: string }) {
  const [value, change] = useSetting<boolean>(path);
  const id = useId();
  if (value === undefined) return null;
  return (
    <div className="toggle-row">
      <label htmlFor={id}>{label}</label>
      <button
        id={id}
        type="button"
        role="switch"
        aria-checked={value}
        className="switch"
        data-testid={`toggle-${path}`}
        onClick={() => change(!value)}
      >
        <span className="knob" />
      </button>
      {hint && <p className="hint">{hint}</p>}
    </div>
  );
}
