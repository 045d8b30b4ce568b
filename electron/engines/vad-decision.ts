/**
 * Silero's speech decision with its hysteresis: speech starts at the threshold and, once started,
 * holds down to 0.15 below it. Pure (no Node or native imports): the VAD engine decides with it,
 * and the renderer's endpoint replay repeats the same decision on a recorded trace.
 */
export const VAD_HYSTERESIS = 0.15;

/** Whether this window is speech, given its probability and whether the previous window was. */
export function isSpeech(wasSpeech: boolean, probability: number, threshold: number): boolean {
  return wasSpeech ? probability >= threshold - VAD_HYSTERESIS : probability >= threshold;
}
