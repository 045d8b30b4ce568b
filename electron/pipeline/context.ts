import type { Settings } from '../settings/schema';
import type { Clock } from './clock';
import type { EventHub } from './events';
import type { AudioOutput } from './speak/output';

/**
 * What every stage of one pipeline shares: its clock, the settings as they are now, the events it
 * tells the outside world, and the speaker (what it played is also the echo reference).
 */
export interface PipelineContext {
  readonly clock: Clock;
  readonly settings: () => Settings;
  readonly events: EventHub;
  readonly output: AudioOutput;
}
