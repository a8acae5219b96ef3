import { format } from 'node:util';

const LEVELS: Record<number, string> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};
const OMITTED = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'service']);

/**
 * A pino destination that prints one readable line per entry (`10:02:03 info  checkout created
 * transactionCode=…`) for a developer's terminal; services keep pino's JSON lines.
 */
export function readableLogStream(output: NodeJS.WritableStream = process.stdout): {
  write(line: string): void;
} {
  return {
    write(line: string) {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        output.write(line);
        return;
      }
      const time = new Date(Number(entry.time)).toISOString().slice(11, 19);
      const level = (LEVELS[Number(entry.level)] ?? String(entry.level)).padEnd(5);
      const fields = Object.entries(entry)
        .filter(([key]) => !OMITTED.has(key))
        .map(([key, value]) => `${key}=${typeof value === 'string' ? value : format('%j', value)}`);
      output.write(
        `${time} ${level} ${String(entry.msg ?? '')}${fields.length ? `  ${fields.join(' ')}` : ''}\n`,
      );
    },
  };
}
