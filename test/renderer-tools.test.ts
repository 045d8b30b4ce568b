/** The Tools panel's pure model (renderer/model/tools.ts): its lines, and the settings patches its switches send. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { McpServerSettings } from '../electron/settings/mcp-servers';
import { lastCallLine, serverStateLine, serverWhere, withServerEnabled, withToolSwitched } from '../renderer/model/tools';

const servers: McpServerSettings[] = [
  { name: 'files', command: 'npx', args: ['-y', 'server-files'], env: { TOKEN: '' }, enabled: true },
  { name: 'web', url: 'http://localhost:3000/mcp', enabled: true, disabledTools: ['fetch'] },
];

describe('the Tools panel model', () => {
  it('says what each tool did last', () => {
    assert.equal(lastCallLine({ lastMs: null, lastOk: null }), 'not called yet');
    assert.equal(lastCallLine({ lastMs: 3.25, lastOk: true }), 'last call 3.3 ms');
    assert.equal(lastCallLine({ lastMs: 1234.4, lastOk: false }), 'last call failed after 1234 ms');
  });

  it("says each server's state, with the reason and the restarts", () => {
    assert.equal(serverStateLine({ state: 'ready', error: null, restarts: 0 }), 'ready');
    assert.equal(serverStateLine({ state: 'ready', error: null, restarts: 2 }), 'ready (started again 2 times)');
    assert.equal(serverStateLine({ state: 'connecting', error: null, restarts: 0 }), 'connecting…');
    assert.equal(serverStateLine({ state: 'error', error: 'the program "x" was not found', restarts: 1 }), 'not running: the program "x" was not found; it is tried again (started again once)');
    assert.equal(serverStateLine({ state: 'off', error: null, restarts: 0 }), 'off');
    assert.equal(serverWhere(servers[0]), 'npx -y server-files');
    assert.equal(serverWhere(servers[1]), 'http://localhost:3000/mcp');
  });

  it('a switch sends the whole list with only that tool or server changed, values untouched', () => {
    const off = withToolSwitched(servers, 'files', 'read_file', false);
    assert.deepEqual(off[0], { ...servers[0], disabledTools: ['read_file'] });
    assert.equal(off[1], servers[1], 'the other server is the same object');
    assert.deepEqual(withToolSwitched(off, 'files', 'read_file', true)[0], servers[0], 'back on: no disabledTools left');
    assert.deepEqual(withToolSwitched(servers, 'web', 'fetch', true)[1], { name: 'web', url: 'http://localhost:3000/mcp', enabled: true });
    assert.deepEqual(withServerEnabled(servers, 'web', false)[1], { ...servers[1], enabled: false });
  });
});
