// The built server in child processes (bench/watcher-server-child.mjs), for benchmarks that run it
// against a chain in their own process; each child is tracked so the benchmark can stop it at the end.
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));

/** Running children and when each exits. */
const running = new Map();

/** Starts the built server with `options` in a child process; resolves once it listens. */
export function startServerChild(options) {
  return new Promise((resolve, reject) => {
    const child = fork(join(here, 'watcher-server-child.mjs'), [JSON.stringify(options)], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const exited = new Promise((done) => child.once('exit', done));
    running.set(child, exited);
    exited.then(() => running.delete(child));
    child.once('message', ({ url }) =>
      resolve({
        url,
        stop: () => {
          child.kill('SIGTERM');
          return exited;
        },
      }),
    );
    child.once('exit', (code) => reject(new Error(`watcher-server-child.mjs exited with ${code}`)));
  });
}

/** Stops every child still running (`signal` SIGTERM waits for each to exit; SIGKILL does not need to). */
export async function stopServerChildren(signal = 'SIGTERM') {
  for (const [child, exited] of running) {
    child.kill(signal);
    await exited;
  }
}

/** Calls the server's API; resolves to the envelope's `data`. @throws Error with the status and body. */
export async function api(server, method, path, body) {
  const response = await fetch(`${server.url}/api${path}`, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${JSON.stringify(json)}`);
  return json.data;
}
