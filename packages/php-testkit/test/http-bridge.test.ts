import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type BridgeRequest,
  type BridgeResponse,
  createPhpPool,
  describeEachPhp,
  type HttpBridge,
  PHP_VERSIONS,
  type PhpPool,
  phpString,
  runPhpRequest,
  startHttpBridge,
} from '../src/index.js';

const opened: HttpBridge[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((bridge) => bridge.close()));
});

async function bridgeFor(handler: Parameters<typeof startHttpBridge>[0], offline?: Set<string>) {
  const bridge = await startHttpBridge(handler, offline === undefined ? {} : { offline });
  opened.push(bridge);
  return bridge;
}

describe('startHttpBridge', () => {
  it('hands each request to the handler over real loopback HTTP, and sends its answer', async () => {
    const seen: BridgeRequest[] = [];
    const bridge = await bridgeFor(async (request) => {
      seen.push(request);
      return { status: 201, headers: { 'x-answer': 'yes' }, body: `got ${request.body.toString('utf8')}` };
    });
    expect(bridge.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    // From outside the bridge's own helper, as the reference server would call it.
    const response = await fetch(`${bridge.url}/hook?a=1&b=two`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"n":1}',
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-answer')).toBe('yes');
    expect(await response.text()).toBe('got {"n":1}');
    expect(seen).toHaveLength(1);
    expect(seen[0]?.method).toBe('POST');
    expect(seen[0]?.url.href).toBe(`${bridge.url}/hook?a=1&b=two`);
    expect(seen[0]?.headers['content-type']).toBe('application/json');
  });

  it('request() reads the whole answer and does not follow redirects', async () => {
    const bridge = await bridgeFor(
      async (request): Promise<BridgeResponse> =>
        request.url.pathname === '/from'
          ? { status: 302, headers: { location: '/to' }, body: '' }
          : { status: 200, headers: {}, body: 'arrived' },
    );
    expect(await bridge.request('/from')).toMatchObject({ status: 302, headers: { location: '/to' } });
    expect(await bridge.request('/to', { method: 'PUT', body: 'x' })).toMatchObject({
      status: 200,
      body: 'arrived',
    });
  });

  it('answers 503 for offline paths without calling the handler', async () => {
    const handler = vi.fn(async () => ({ status: 200, headers: {}, body: 'up' }));
    const offline = new Set(['/webhook']);
    const bridge = await bridgeFor(handler, offline);
    expect(bridge.offline).toBe(offline);
    expect(await bridge.request('/webhook?x=1')).toMatchObject({ status: 503, body: 'offline' });
    expect(handler).not.toHaveBeenCalled();
    bridge.offline.delete('/webhook');
    expect(await bridge.request('/webhook')).toMatchObject({ status: 200, body: 'up' });
  });

  it('turns a failing handler into a 500 carrying the error', async () => {
    const bridge = await bridgeFor(async () => {
      throw new Error('no route');
    });
    expect(await bridge.request('/')).toMatchObject({ status: 500, body: 'Error: no route' });
  });

  it('stops answering once closed', async () => {
    const bridge = await startHttpBridge(async () => ({ status: 204, headers: {}, body: '' }));
    expect((await bridge.request('/')).status).toBe(204);
    await bridge.close();
    await expect(bridge.request('/')).rejects.toThrow();
  });
});

describeEachPhp('runPhpRequest', ({ php }) => {
  it("returns the script's status, headers, output, stderr and reads the request body", async () => {
    const result = await runPhpRequest(php(), {
      method: 'POST',
      body: new TextEncoder().encode('ping'),
      code: `<?php
http_response_code(202);
header('X-Method: ' . $_SERVER['REQUEST_METHOD']);
fwrite(fopen('php://stderr', 'w'), 'careful');
echo strtoupper(file_get_contents('php://input'));`,
    });
    expect(result).toMatchObject({ status: 202, body: 'PING', stderr: 'careful' });
    expect(result.headers['x-method']).toBe('POST');
  });
});

describe('PHP behind the bridge', () => {
  const version = PHP_VERSIONS[PHP_VERSIONS.length - 1]!;
  let pool: PhpPool | undefined;
  afterEach(() => {
    pool?.dispose();
    pool = undefined;
  });

  it('serves PHP from a pool, where concurrent requests run on separate interpreters', async () => {
    pool = await createPhpPool(version, { size: 2 });
    // The tasks wait until two run at once (or a second has passed), as slow requests would.
    let running = 0;
    let bothRunning: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      bothRunning = resolve;
      setTimeout(resolve, 1_000);
    });
    const bridge = await bridgeFor((request) =>
      pool!.run(async (php) => {
        running += 1;
        if (running === 2) bothRunning();
        await gate;
        return runPhpRequest(php, {
          code: `<?php
// Each interpreter counts its own requests in a file of its own file system.
$count = (int) @file_get_contents('/tmp/count') + 1;
file_put_contents('/tmp/count', (string) $count);
echo json_encode(['path' => ${phpString(request.url.pathname)}, 'count' => $count]);`,
        });
      }),
    );
    const answers = await Promise.all(
      ['/a', '/b', '/c'].map(async (path) => JSON.parse((await bridge.request(path)).body)),
    );
    // Two interpreters for three requests: one of them served two, the other one.
    expect(answers.map((answer) => answer.path)).toEqual(['/a', '/b', '/c']);
    expect(answers.map((answer) => answer.count).sort()).toEqual([1, 1, 2]);
  });

  it('queues tasks while every interpreter is busy, and runs them in order', async () => {
    pool = await createPhpPool(version, { size: 1 });
    const order: string[] = [];
    let releaseFirst: () => void = () => {};
    const first = pool.run(async () => {
      order.push('first started');
      await new Promise<void>((resolve) => {
        releaseFirst = resolve;
      });
      order.push('first done');
    });
    const second = pool.run(async () => {
      order.push('second');
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order).toEqual(['first started']);
    releaseFirst();
    await Promise.all([first, second]);
    expect(order).toEqual(['first started', 'first done', 'second']);
  });
});
