/**
 * One setting as a component edits it: the saved value, a draft while the user drags (so views such
 * as the endpoint replay follow the slider at once), and a save shortly after the last change.
 */
import { useCallback, useEffect, useRef } from 'react';
import { create } from 'zustand';
import { api } from '../api/current';
import { patchAt, valueAt } from '../model/settings-patch';
import { useUi } from '../store';

interface Drafts {
  values: Record<string, unknown>;
  set(path: string, value: unknown): void;
  clear(path: string, value: unknown): void;
}

/** Values being edited and not yet saved, by dotted path. */
export const useDrafts = create<Drafts>()((set) => ({
  values: {},
  set: (path, value) => set((s) => ({ values: { ...s.values, [path]: value } })),
  clear: (path, value) =>
    set((s) => {
      if (s.values[path] !== value) return {};
      const { [path]: _, ...rest } = s.values;
      return { values: rest };
    }),
}));

const SAVE_AFTER_MS = 120;

export async function saveSetting(path: string, value: unknown): Promise<boolean> {
  const result = await api().request({ type: 'update-settings', patch: patchAt(path, value) });
  if (!result.ok) useUi.getState().notify('error', result.error);
  return result.ok;
}

/** [value shown, change(value)]: the draft if one is pending, else the saved value. */
export function useSetting<T>(path: string): [T | undefined, (value: T) => void] {
  const saved = useUi((s) => (s.settings ? (valueAt(s.settings, path) as T) : undefined));
  const draft = useDrafts((s) => s.values[path]) as T | undefined;
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => {
    if (timer.current) clearTimeout(timer.current);
  }, []);
  const change = useCallback(
    (value: T) => {
      useDrafts.getState().set(path, value);
      if (timer.current) clearTimeout(timer.current);
      timer.current = setTimeout(() => {
        void saveSetting(path, value).finally(() => useDrafts.getState().clear(path, value));
      }, SAVE_AFTER_MS);
    },
    [path],
  );
  return [draft !== undefined ? draft : saved, change];
}
