/**
 * Electron glue for the tray icon: the image, tooltip and menu from tray-model.ts, each handed to
 * the Tray only when it changed (Linux rebuilds its menu over D-Bus on every setContextMenu).
 * Menu items call the actions passed in; nothing here decides anything.
 */
import { Menu, nativeImage, Tray, type MenuItemConstructorOptions, type NativeImage } from 'electron';
import type { ShellPlatform } from '../settings/accelerator';
import { TRAY_ICON_SIZES, trayIconBitmap, trayMenu, trayTooltip, useTemplateIcon, type TrayAction, type TrayMenuItem, type TrayState, type TrayView } from './tray-model';

export type TrayActions = Readonly<Record<TrayAction, () => void>>;

/** One image with a representation per scale factor, so HiDPI screens get the 32 px drawing. */
function trayImage(state: TrayState, template: boolean): NativeImage {
  const image = nativeImage.createEmpty();
  for (const { size, scaleFactor } of TRAY_ICON_SIZES) {
    const bitmap = trayIconBitmap(state, size, template);
    image.addRepresentation({ scaleFactor, width: bitmap.width, height: bitmap.height, buffer: bitmap.buffer });
  }
  if (template) image.setTemplateImage(true);
  return image;
}

function menuTemplate(items: readonly TrayMenuItem[], run: (action: TrayAction) => void): MenuItemConstructorOptions[] {
  return items.map((item): MenuItemConstructorOptions =>
    item.kind === 'separator'
      ? { type: 'separator' }
      : {
          label: item.label,
          enabled: item.enabled,
          ...(item.checked === undefined ? {} : { type: 'checkbox', checked: item.checked }),
          click: () => run(item.action),
        },
  );
}

export class AssistantTray {
  private readonly images = new Map<TrayState, NativeImage>();
  private shownState: TrayState | null = null;
  private shownTooltip = '';
  private shownMenu = '';
  private lastView: TrayView | null = null;

  private constructor(
    private readonly tray: Tray,
    private readonly template: boolean,
    private readonly appName: string,
    private readonly actions: TrayActions,
  ) {}

  /** The tray icon, or null where the platform has none (creation threw): the app then runs without one. */
  static create(platform: ShellPlatform, appName: string, actions: TrayActions, view: TrayView): AssistantTray | null {
    const template = useTemplateIcon(platform);
    let tray: Tray;
    try {
      tray = new Tray(trayImage(view.state, template));
    } catch (err) {
      console.error('No tray icon:', err);
      return null;
    }
    const t = new AssistantTray(tray, template, appName, actions);
    // On Windows a click on the icon is how a tray app is opened; macOS opens the menu, Linux's indicators never report clicks.
    if (platform === 'win32') tray.on('click', () => actions.show());
    t.update(view);
    return t;
  }

  update(view: TrayView): void {
    if (this.tray.isDestroyed()) return;
    this.lastView = view;
    if (view.state !== this.shownState) {
      let image = this.images.get(view.state);
      if (!image) this.images.set(view.state, (image = trayImage(view.state, this.template)));
      this.tray.setImage(image);
      this.shownState = view.state;
    }
    const tooltip = trayTooltip(view, this.appName);
    if (tooltip !== this.shownTooltip) {
      this.tray.setToolTip(tooltip);
      this.shownTooltip = tooltip;
    }
    const items = trayMenu(view, this.appName);
    const key = JSON.stringify(items);
    if (key !== this.shownMenu) {
      this.tray.setContextMenu(Menu.buildFromTemplate(menuTemplate(items, (action) => this.run(action))));
      this.shownMenu = key;
    }
  }

  private run(action: TrayAction): void {
    this.actions[action]();
    // A checkbox ticks itself when clicked; if the action changed nothing, the menu must be put back as the model has it.
    if (action === 'mute' && this.lastView) {
      this.shownMenu = '';
      this.update(this.lastView);
    }
  }

  destroy(): void {
    if (!this.tray.isDestroyed()) this.tray.destroy();
  }
}
