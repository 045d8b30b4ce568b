/**
 * Frequent updates (the microphone level, 50 a second) that only drive what is drawn: dropped while
 * the window is hidden (in the tray) so React does not re-render for nobody, and the latest one
 * published when it is shown again. Pure over a document-like object, tested in Node.
 */

/** What this needs of `document`. */
export interface VisibilitySource {
  readonly visibilityState: string;
  addEventListener(type: 'visibilitychange', listener: () => void): void;
}

export function isHidden(doc: Pick<VisibilitySource, 'visibilityState'> | undefined): boolean {
  return doc?.visibilityState === 'hidden';
}

/** A function to call with each value: it reaches `publish` only while `doc` is visible, and the last held one when it becomes visible. */
export function whileVisible<T>(doc: VisibilitySource | undefined, publish: (value: T) => void): (value: T) => void {
  let held: { value: T } | null = null;
  doc?.addEventListener('visibilitychange', () => {
    if (isHidden(doc) || !held) return;
    const { value } = held;
    held = null;
    publish(value);
  });
  return (value) => {
    if (isHidden(doc)) held = { value };
    else publish(value);
  };
}
