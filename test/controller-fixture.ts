/**
 * A controller with no models to load (a folder without any): what the settings, their secrets and
 * the desktop glue do is what such a test looks at. Its events are collected. Not a test file.
 */
import path from 'node:path';
import { AssistantController } from '../electron/app/controller';
import type { ControllerOptions } from '../electron/app/controller-options';
import type { AppEvent } from '../electron/ipc-contract';

export function controllerWithoutModels(dir: string, extra: Partial<ControllerOptions> = {}): { controller: AssistantController; events: AppEvent[] } {
  const controller = new AssistantController({
    settingsFile: path.join(dir, 'settings.json'),
    modelRoots: () => [path.join(dir, 'no-models')],
    downloadRoot: path.join(dir, 'downloads'),
    audioSink: () => null,
    detectHardware: async () => ({ backend: 'cpu', gpuNames: [], vramMiB: null, unifiedMemory: false, ramMiB: 8192 }),
    ...extra,
  });
  const events: AppEvent[] = [];
  controller.on((e) => events.push(e));
  return { controller, events };
}
