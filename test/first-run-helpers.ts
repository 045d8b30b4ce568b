/** A controller on its first run, for the tests of the first-run download. */
import path from 'node:path';
import { AssistantController } from '../electron/app/controller';
import type { ControllerOptions } from '../electron/app/controller-options';
import type { ModelEntry } from '../native-models/types';

export interface FirstRunOptions extends Pick<ControllerOptions, 'fetch'> {
  /** Folders searched after the (empty) download folder, for models already there. */
  otherRoots?: string[];
}

/** A controller whose models folder, `dir`/models, is empty: it downloads into it from `catalog`. */
export function firstRunController(dir: string, catalog: readonly ModelEntry[], opts: FirstRunOptions = {}): { controller: AssistantController; models: string } {
  const { otherRoots = [], ...rest } = opts;
  const models = path.join(dir, 'models');
  const controller = new AssistantController({
    settingsFile: path.join(dir, 'settings.json'),
    modelRoots: () => [models, ...otherRoots],
    audioSink: () => null,
    downloadRoot: models,
    catalog,
    ...rest,
  });
  return { controller, models };
}
