import { connect } from 'node:net';

/** Writes raw bytes to the server and collects everything it answers until it closes the socket. */
export function rawExchange(
  port: number,
  chunks: Array<string | Buffer>,
  options: { intervalMs?: number; holdOpen?: boolean } = {},
): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    socket.on('data', (chunk) => received.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text: Buffer.concat(received).toString('latin1'), closed: true });
    });
    socket.on('connect', () => {
      const queue = [...chunks];
      const next = () => {
        const chunk = queue.shift();
        if (chunk === undefined) {
          if (!options.holdOpen) socket.end();
          return;
        }
        if (!socket.destroyed) socket.write(chunk);
        timer = setTimeout(next, options.intervalMs ?? 0);
      };
      next();
    });
    socket.setTimeout(15_000, () => {
      socket.destroy();
      reject(new Error(`no close after 15 s; received ${Buffer.concat(received).toString('latin1')}`));
    });
  });
}

/**
 * Splits the first raw HTTP/1.1 response of `text` into status, headers and body (parsed as JSON
 * when it is JSON, else undefined). A status of 0 means the server answered nothing.
 */
export function parseRaw(text: string): {
  status: number;
  headers: Record<string, string>;
  body: string;
  json: any;
} {
  const headEnd = text.indexOf('\r\n\r\n');
  const head = headEnd < 0 ? text : text.slice(0, headEnd);
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const rest = headEnd < 0 ? '' : text.slice(headEnd + 4);
  const length = Number(headers['content-length']);
  const body = Number.isInteger(length) ? rest.slice(0, length) : rest;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  return { status: Number(statusLine.split(' ')[1] ?? 0) || 0, headers, body, json };
}
