import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readableLogStream } from './logging.js';

describe('readable log lines', () => {
  it('prints time, level, message and fields on one line', () => {
    let printed = '';
    const output = new Writable({
      write(chunk, _encoding, done) {
        printed += chunk;
        done();
      },
    });
    const stream = readableLogStream(output);
    stream.write(
      JSON.stringify({
        level: 30,
        time: Date.parse('2026-11-01T10:02:03Z'),
        pid: 1,
        msg: 'checkout created',
        amountInUsd: '27.11',
        extra: { a: 1 },
      }),
    );
    stream.write('not json\n');
    expect(printed).toBe('10:02:03 info  checkout created  amountInUsd=27.11 extra={"a":1}\nnot json\n');
  });
});
