import { BUNDLED_MODELS_DIR, defaultUserModelsDir, searchOrder } from '../../native-models/resolver';
import { loadEngines, type LoadedEngines } from '../pipeline/load-engines';
import type { Settings } from '../settings/schema';
import type { ToolSpec } from '../engines/tool-calls';
import type { ModelEntry } from '../../native-models/types';

/**
 * The engines a command-line run uses: models from --models, else the settings' folder, then the
 * user's models folder, then the bundled ones (the app's order, so a command finds what the app finds).
 */
export function loadEnginesFor(settings: Settings, modelsFlag: string | undefined, tools: readonly ToolSpec[] = [], catalog?: readonly ModelEntry[]): Promise<LoadedEngines> {
  const roots = searchOrder({ explicit: modelsFlag ?? settings.models.dir ?? undefined, user: defaultUserModelsDir(), bundled: BUNDLED_MODELS_DIR });
  return loadEngines(() => settings, roots, undefined, catalog, undefined, tools);
}
