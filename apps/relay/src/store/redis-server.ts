import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** For tests: a port nobody listens on. */
export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** For tests: a private redis-server, so a test can take it away and bring it back without touching anyone else's. */
export async function startRedis(port: number): Promise<ChildProcess> {
  const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = createServer();
      socket.once('error', () => resolve(true));
      socket.listen(port, '127.0.0.1', () => socket.close(() => resolve(false)));
    });
    if (up) return server;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('redis-server did not start');
}

/** Whether the redis-server binary is installed; CI=true requires it. */
export async function hasRedisServer(): Promise<boolean> {
  const found = await new Promise<boolean>((resolve) => {
    const check = spawn('redis-server', ['--version'], { stdio: 'ignore' });
    check.once('error', () => resolve(false));
    check.once('exit', (code) => resolve(code === 0));
  });
  if (!found && process.env.CI === 'true') throw new Error('CI=true needs the redis-server binary');
  return found;
}
