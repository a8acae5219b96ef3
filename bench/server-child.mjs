// The reference server as built (dist), in its own process, for bench/load.mjs.
import { startServer } from '../packages/server/dist/index.js';

const server = await startServer({ port: 0, dataDir: process.argv[2], logLevel: 'warn' });
process.send({ url: server.url });
process.on('SIGTERM', () => server.close().then(() => process.exit(0)));
