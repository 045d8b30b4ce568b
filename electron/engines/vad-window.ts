/**
 * The VAD's audio format: the rate and window every stage of the pipeline works in. Apart from the
 * VAD itself so that using them loads no native engine (a CLI's --help, a path check).
 */
export const VAD_SAMPLE_RATE = 16000;
/** Silero works on 512-sample (32 ms) windows at 16 kHz. */
export const VAD_WINDOW = 512;
export const VAD_WINDOW_MS = (VAD_WINDOW / VAD_SAMPLE_RATE) * 1000;
