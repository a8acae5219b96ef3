// The baseline: a bare node:http server answering every request with a fixed JSON body.
import { createServer } from 'node:http';

const body = JSON.stringify({ status: 'success', data: { ok: true, transaction_code: '7d3f2a10-5b6c-4e8d-9f01-23456789abcd' } });
const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  });
});
server.listen(0, '127.0.0.1', () => process.send({ url: `http://127.0.0.1:${server.address().port}` }));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
