/**
 * The checker process: `child.ts '<ResolvedModel as JSON>'`, started by check.ts. Runs one model once
 * and sends the outcome to the parent. A native engine that rejects the file may end this process
 * instead of throwing; the parent reports that too.
 */
import type { ResolvedModel } from '../../native-models/types';
import { runCheck } from './run-check';
import type { ChildMessage } from './check';

function send(message: ChildMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) {
      console.log(JSON.stringify(message));
      resolve();
    } else process.send(message, undefined, undefined, () => resolve());
  });
}

async function main(): Promise<void> {
  let message: ChildMessage;
  try {
    const model = JSON.parse(process.argv[2] ?? '') as ResolvedModel;
    const r = await runCheck(model);
    message = { ok: true, loadMs: r.loadMs, detail: r.detail };
  } catch (e) {
    message = { ok: false, reason: e instanceof Error ? e.message : String(e) };
  }
  await send(message);
  // Engines may hold native handles open: the outcome is sent, nothing else is needed.
  process.exit(0);
}

void main();
