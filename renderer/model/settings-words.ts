/** Words the Settings tab says about values whose bare number would mislead (the voice, the context in use). Pure, tested in Node. */

/**
 * The voice setting (`tts.speakerId`, counted from 0 as the voice model numbers its speakers) as a
 * person counts: "Voice 1 of 4" when the model's number of voices is known, else "Voice number" and "1".
 */
export function voiceWords(speakerId: number, voices: number | null): { label: string; value: string } {
  const n = Math.trunc(speakerId) + 1;
  if (voices !== null && voices > 0) {
    // The engine uses the model's last voice for a number past it: say which one plays.
    return { label: 'Voice', value: `Voice ${Math.min(n, voices)} of ${voices}` };
  }
  return { label: 'Voice number', value: String(n) };
}

/**
 * The context size's hint: what a change does and, when the model runs with another context than
 * the one asked for (a model caps it at its training size), both numbers ("4096 tokens asked, 2048
 * in use: the model's limit"). `inUse` null: no local model loaded, nothing to compare.
 */
export function contextHint(asked: number, inUse: number | null): string {
  const reload = 'Changing the context size or GPU layers reloads the model.';
  if (inUse === null || inUse === asked) return reload;
  return `${asked} tokens asked, ${inUse} in use${limitWhy(asked, inUse)}. ${reload}`;
}

/** Only a smaller context is the model's doing (it caps the size at its training size). */
function limitWhy(asked: number, inUse: number): string {
  return inUse < asked ? ": the model's limit" : '';
}

/** The Models panel's context line: the size in use, and the one asked for when they differ ("2048 tokens (4096 asked: the model's limit)"). */
export function contextInUse(inUse: number, asked: number | null): string {
  return asked === null || asked === inUse ? `${inUse} tokens` : `${inUse} tokens (${asked} asked${limitWhy(asked, inUse)})`;
}
