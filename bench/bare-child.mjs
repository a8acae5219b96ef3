// The baseline: a bare node:http server answering GET and POST with fixed JSON bodies (argv 2 and 3).
import { createServer } from 'node:http';

const [getBody, postBody] = process.argv.slice(2);
const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    const body = request.method === 'POST' ? postBody : getBody;
    response.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    response.end(body);
  });
});
server.listen(0, '127.0.0.1', () => process.send({ url: `http://127.0.0.1:${server.address().port}` }));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
