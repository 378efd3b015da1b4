import { ConfigReader } from '../src/config';
import { createPool } from '../src/db';
import { createLogger } from '../src/logger';
import { listenHost } from '../src/serve';
import { captureLogs, runMainLogged } from './capture-logs';

const capture = (level: string) => captureLogs('svc', level);

test('When start-up fails on configuration, runMain writes one JSON line at error level with every problem, then exits 1', async () => {
  const { code, lines } = await runMainLogged('info', async () => {
    const r = new ConfigReader({ PORT: 'abc' });
    r.int('PORT');
    r.string('DATABASE_URL');
    r.done('svc');
  });
  expect(code).toBe(1);
  expect(lines).toHaveLength(1);
  const line = lines[0]! as {
    level: number;
    msg: string;
    service: string;
    err: Record<string, unknown>;
  };
  expect(line).toMatchObject({ level: 50, msg: 'start-up failed', service: 'svc' });
  expect(line.err.type).toBe('ConfigError');
  expect(line.err.problems).toEqual([
    'PORT must be an integer (got "abc")',
    'DATABASE_URL is required',
  ]);
  expect(String(line.err.stack)).toContain('ConfigError');
});

test('When LOG_LEVEL is silent, a start-up failure is still written at error level', async () => {
  const { code, lines } = await runMainLogged('silent', async () => {
    throw new Error('listen EADDRINUSE: address already in use 0.0.0.0:8080');
  });
  expect(code).toBe(1);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({ level: 50, msg: 'start-up failed' });
  expect((lines[0]!.err as { message: string }).message).toMatch(/EADDRINUSE/);
});

test('When start-up succeeds, runMain logs nothing and does not exit', async () => {
  const { code, lines } = await runMainLogged('info', async () => undefined);
  expect(code).toBe(-1);
  expect(lines).toEqual([]);
});

test('When LOG_LEVEL is not a level, createLogger falls back to info instead of throwing', () => {
  expect(createLogger('svc', 'verbose').level).toBe('info');
});

test('When an idle pool client fails, the error is a JSON line at error level, not swallowed', () => {
  const { logger, lines } = capture('info');
  const pool = createPool('postgres://127.0.0.1:1/none', 1, logger);
  const err = Object.assign(new Error('terminating connection due to administrator command'), {
    code: '57P01',
    client: { connectionParameters: { password: 'hunter2' } }, // as pg attaches it
  });
  pool.emit('error', err, {});
  expect(lines).toHaveLength(1);
  expect(JSON.stringify(lines[0])).not.toContain('hunter2');
  expect(lines[0]!.err).toMatchObject({ code: '57P01', type: 'Error' });
  expect(lines[0]).toMatchObject({ level: 50, msg: 'database pool: an idle client failed' });
  expect((lines[0]!.err as { message: string }).message).toMatch(/administrator command/);
  void pool.end();
});

test('When an idle client fails after the pool began to end (shutdown), nothing is logged', async () => {
  const { logger, lines } = capture('info');
  const pool = createPool('postgres://127.0.0.1:1/none', 1, logger);
  const ended = pool.end();
  pool.emit('error', new Error('terminating connection due to administrator command'), {});
  await ended;
  expect(lines).toEqual([]);
});

test('listenHost: HOST when set, otherwise every interface', () => {
  expect(listenHost({})).toBe('0.0.0.0');
  expect(listenHost({ HOST: ' ' })).toBe('0.0.0.0');
  expect(listenHost({ HOST: '127.0.0.1' })).toBe('127.0.0.1');
});
