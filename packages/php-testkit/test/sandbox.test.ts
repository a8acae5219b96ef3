import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPhp, describeEachPhp, PHP_VERSIONS, phpJson, phpString } from '../src/index.js';

const hostDir = mkdtempSync(join(tmpdir(), 'php-testkit-'));
writeFileSync(join(hostDir, 'greet.php'), '<?php echo "hello from the host";');
afterAll(() => rmSync(hostDir, { recursive: true, force: true }));

describe('PHP_VERSIONS', () => {
  it('covers the oldest supported PHP and a current one', () => {
    expect(PHP_VERSIONS).toEqual(['7.4', '8.3']);
  });
});

describeEachPhp(
  'PHP sandbox',
  ({ version, php }) => {
    it('runs the requested PHP version', async () => {
      const result = await php().runScript('echo PHP_MAJOR_VERSION . "." . PHP_MINOR_VERSION;');
      expect(result).toEqual({ stdout: version, stderr: '', exitCode: 0 });
    });

    it('reports a failing exit code and stderr instead of throwing', async () => {
      const result = await php().runScript(
        `<?php echo "out"; fwrite(fopen('php://stderr', 'w'), "err"); exit(3);`,
      );
      expect(result).toEqual({ stdout: 'out', stderr: 'err', exitCode: 3 });
    });

    it('reports a fatal error as a non-zero exit', async () => {
      const result = await php().runScript('undefined_function_for_the_test();');
      expect(result.exitCode).not.toBe(0);
      expect(result.stdout + result.stderr).toContain('undefined_function_for_the_test');
    });

    it('passes environment variables and a request body', async () => {
      const result = await php().runScript(
        `echo getenv('GREETING'), '|', file_get_contents('php://input');`,
        {
          env: { GREETING: 'hi' },
          body: '{"a":1}',
        },
      );
      expect(result.stdout).toBe('hi|{"a":1}');
    });

    it('writes, reads and runs files in its own file system', async () => {
      php().writeFile('/work/nested/script.php', '<?php echo 6 * 7;');
      expect(php().readFile('/work/nested/script.php')).toBe('<?php echo 6 * 7;');
      expect((await php().runFile('/work/nested/script.php')).stdout).toBe('42');
    });

    it('exposes mounted host directories', async () => {
      expect((await php().runFile('/host/greet.php')).stdout).toBe('hello from the host');
    });

    it('starts every run as a fresh request', async () => {
      await php().runScript('class DefinedInAnEarlierRun {}');
      const result = await php().runScript('echo class_exists("DefinedInAnEarlierRun") ? "kept" : "fresh";');
      expect(result.stdout).toBe('fresh');
    });

    it('decodes JSON output and refuses anything else', async () => {
      await expect(php().runJson('echo json_encode(["a" => 1]);')).resolves.toEqual({ a: 1 });
      await expect(php().runJson('echo "not json";')).rejects.toThrow(
        /other than JSON[\s\S]*stdout: not json/,
      );
      await expect(php().runJson('exit(2);')).rejects.toThrow(/exited with 2/);
    });

    it('hands values to PHP exactly as JSON decoding would', async () => {
      const value = { text: "it's a \\ test", amount: 12.5, count: 3, list: [true, null] };
      const result = await php().runJson(
        `$v = ${phpJson(value)}; echo json_encode([$v, gettype($v['amount']), gettype($v['count']), ${phpString("a'b\\c")}]);`,
      );
      expect(result).toEqual([value, 'double', 'integer', "a'b\\c"]);
    });
  },
  { mounts: { '/host': hostDir } },
);

describe('createPhp', () => {
  it('stops the interpreter on dispose', async () => {
    const sandbox = await createPhp('8.3');
    sandbox.dispose();
    await expect(sandbox.runScript('echo 1;')).rejects.toThrow();
    expect(() => sandbox.dispose()).not.toThrow();
  });
});
