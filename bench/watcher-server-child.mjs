// The reference server as built (dist), in its own process, for bench/watcher.mjs: the options come as
// JSON in argv[2]. It runs apart from the bench, which hosts ganache, so the chain and the server each
// get a core, as a server and its RPC node would.
import { startServer } from '../packages/server/dist/index.js';

const server = await startServer(JSON.parse(process.argv[2]));
// The watcher's first scan is a timer set inside startServer, so it has not run yet: catch-up time
// counts from here.
process.send({ url: server.url, startedAt: Date.now(), cpu: process.cpuUsage() });
// CPU time so far (µs), so the bench can tell whether the server or the RPC node sets the pace.
process.on('message', (message) => {
  if (message === 'cpu') process.send({ cpu: process.cpuUsage() });
});
process.on('SIGTERM', () => server.close().then(() => process.exit(0)));
