// The reference server as built (dist), in its own process, for the benchmarks: argv[2] is its data
// directory, argv[3] (optional) JSON of further server options.
import { startServer } from '../packages/server/dist/index.js';

const extra = process.argv[3] ? JSON.parse(process.argv[3]) : {};
const server = await startServer({ port: 0, dataDir: process.argv[2], logLevel: 'warn', ...extra });
process.send({ url: server.url });
process.on('SIGTERM', () => server.close().then(() => process.exit(0)));
