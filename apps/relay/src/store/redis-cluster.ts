import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { freePort } from './redis-server.ts';

/** One node of a test cluster, as CLUSTER NODES describes it. */
export interface ClusterNode {
  port: number;
  id: string;
  role: 'master' | 'replica';
  /** A replica's master's node id. */
  masterId: string | undefined;
  /** A master's slot ranges, `[first, last]`. */
  slots: [number, number][];
}

/** Runs `redis-cli` with `args`; its output, or an error with its output when it fails. */
export function redisCli(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const cli = spawn('redis-cli', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    cli.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    cli.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    cli.once('error', reject);
    cli.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`redis-cli ${args.join(' ')} exited with ${code}: ${out}`))));
  });
}

/** Sends one command to one node (of a test cluster or any redis-server); its reply, as text. */
export async function ask(port: number, ...command: string[]): Promise<string> {
  const client = createClient({ url: `redis://127.0.0.1:${port}`, socket: { reconnectStrategy: false, connectTimeout: 1_000 } });
  client.on('error', () => {});
  await client.connect();
  try {
    const reply = await client.sendCommand(command);
    return typeof reply === 'string' ? reply : JSON.stringify(reply);
  } finally {
    client.destroy();
  }
}

async function waitFor(what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`Redis Cluster: still not ${what} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * For tests: a private Redis Cluster on loopback, three masters and a replica each, every node a
 * `redis-server` of its own with its files in a temporary directory. `stop()` kills them all and removes
 * the directory. Each node's cluster bus gets a free port of its own (`--cluster-port`), so no port is
 * assumed free beyond those checked.
 */
export async function startRedisCluster(options: { masters?: number } = {}) {
  const masters = options.masters ?? 3;
  const dir = await mkdtemp(join(tmpdir(), 'relay-cluster-'));
  const servers = new Map<number, ChildProcess>();
  const ports: number[] = [];
  const busPorts = new Map<number, number>();

  async function startNode(port: number, bus: number) {
    const server = spawn(
      'redis-server',
      [
        '--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-port', String(bus),
        '--cluster-config-file', `nodes-${port}.conf`, '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no',
        // A master that stops answering is replaced by its replica after 2 s, not the default 15; and
        // meanwhile the other masters keep serving their slots (by default the whole cluster refuses
        // every command while any slot has no master), as the README recommends.
        '--cluster-node-timeout', '2000', '--cluster-require-full-coverage', 'no', '--logfile', `node-${port}.log`,
        // A replica's first sync (at the start, and after revive) begins at once: by default a master waits 5 s for
        // more replicas to sync with the same transfer, which was most of the time a cluster took to start.
        '--repl-diskless-sync-delay', '0',
      ],
      { stdio: 'ignore' },
    );
    servers.set(port, server);
    await waitFor(`answering on ${port}`, async () => (await ask(port, 'PING')) === 'PONG', 10_000);
  }

  async function stop() {
    await Promise.all(
      [...servers.values()].map((server) =>
        server.exitCode === null && server.signalCode === null ? new Promise((resolve) => server.once('exit', resolve).kill('SIGKILL')) : Promise.resolve(),
      ),
    );
    servers.clear();
    await rm(dir, { recursive: true, force: true });
  }

  try {
    while (ports.length < masters * 2) {
      const port = await freePort();
      const bus = await freePort();
      const taken = [...ports, ...busPorts.values()];
      if (port === bus || taken.includes(port) || taken.includes(bus)) continue;
      ports.push(port);
      busPorts.set(port, bus);
      await startNode(port, bus);
    }
    await redisCli(['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes']);
    await whole();
  } catch (error) {
    await stop();
    throw error;
  }

  /**
   * Waits until every node answers and sees the cluster as whole: every slot served, every replica
   * attached and in sync with its master (a replica that never synced would not take over).
   */
  async function whole() {
    await waitFor('whole', async () => {
      for (const port of ports) if (!(await ask(port, 'CLUSTER', 'INFO')).includes('cluster_state:ok')) return false;
      const nodes = await clusterNodes(ports[0]!);
      const replicas = nodes.filter((n) => n.role === 'replica' && n.masterId);
      if (nodes.length !== ports.length || replicas.length !== masters) return false;
      for (const replica of replicas) if (!(await ask(replica.port, 'INFO', 'replication')).includes('master_link_status:up')) return false;
      return true;
    });
  }

  async function clusterNodes(via: number): Promise<ClusterNode[]> {
    const text = await ask(via, 'CLUSTER', 'NODES');
    return text
      .trim()
      .split('\n')
      .flatMap((line) => {
        const [id = '', address = '', flags = '', master = '-', , , , , ...slots] = line.split(' ');
        if (flags.includes('fail') || flags.includes('noaddr')) return [];
        const port = Number(address.split('@')[0]!.split(':')[1]);
        return [
          {
            port,
            id,
            role: flags.includes('master') ? ('master' as const) : ('replica' as const),
            masterId: master === '-' ? undefined : master,
            slots: slots.filter((s) => !s.startsWith('[')).map((s): [number, number] => {
              const [first, last = first] = s.split('-');
              return [Number(first), Number(last)];
            }),
          },
        ];
      });
  }

  /** The nodes as a live node sees them (failed nodes left out). */
  const nodes = async () => {
    for (const port of ports) {
      if (!servers.has(port)) continue;
      try {
        return await clusterNodes(port);
      } catch {
        // That one is down: ask the next.
      }
    }
    throw new Error('Redis Cluster: no node answers');
  };

  return {
    dir,
    ports,
    /** The seed list for REDIS_CLUSTER_URLS. */
    urls: ports.map((p) => `redis://127.0.0.1:${p}`),
    nodes,
    /** The port of the master that holds `slot` now. */
    async masterOf(slot: number): Promise<number> {
      const master = (await nodes()).find((n) => n.role === 'master' && n.slots.some(([a, b]) => slot >= a && slot <= b));
      if (!master) throw new Error(`Redis Cluster: no master holds slot ${slot}`);
      return master.port;
    },
    /**
     * A manual failover: `CLUSTER FAILOVER` on the replica of the master on `masterPort`, which waits for
     * the replica to catch up with its master before it takes over. Resolves once the replica is a master
     * and every node sees the cluster as whole; returns its port.
     */
    async failover(masterPort: number): Promise<number> {
      const all = await nodes();
      const master = all.find((n) => n.port === masterPort && n.role === 'master');
      const replica = all.find((n) => n.role === 'replica' && n.masterId === master?.id);
      if (!master || !replica) throw new Error(`Redis Cluster: ${masterPort} is not a master with a replica`);
      await ask(replica.port, 'CLUSTER', 'FAILOVER');
      await waitFor(`failed over from ${masterPort} to ${replica.port}`, async () => {
        const now = await clusterNodes(masterPort);
        if (now.find((n) => n.port === replica.port)?.role !== 'master') return false;
        for (const port of ports) if (!(await ask(port, 'CLUSTER', 'INFO')).includes('cluster_state:ok')) return false;
        return true;
      });
      return replica.port;
    },
    /**
     * Kills the master on `masterPort` (SIGKILL, no warning) and waits until the cluster has promoted its
     * replica (after `cluster-node-timeout`, 2 s here) and is whole again without it; returns the replica's port.
     */
    async crash(masterPort: number): Promise<number> {
      const all = await nodes();
      const master = all.find((n) => n.port === masterPort && n.role === 'master');
      const replica = all.find((n) => n.role === 'replica' && n.masterId === master?.id);
      const server = servers.get(masterPort);
      if (!master || !replica || !server) throw new Error(`Redis Cluster: ${masterPort} is not a running master with a replica`);
      await new Promise((resolve) => server.once('exit', resolve).kill('SIGKILL'));
      servers.delete(masterPort);
      await waitFor(`promoted ${replica.port} in place of ${masterPort}`, async () => {
        for (const port of servers.keys()) {
          if (!(await ask(port, 'CLUSTER', 'INFO')).includes('cluster_state:ok')) return false;
          if ((await clusterNodes(port)).find((n) => n.port === replica.port)?.role !== 'master') return false;
        }
        return true;
      });
      return replica.port;
    },
    /** Empties every master (and so its replica). */
    async flush() {
      for (const node of await nodes()) if (node.role === 'master') await ask(node.port, 'FLUSHALL');
    },
    /** Kills every node at once: the whole cluster is away. */
    async kill() {
      await Promise.all([...servers.values()].map((server) => new Promise((resolve) => server.once('exit', resolve).kill('SIGKILL'))));
      servers.clear();
    },
    /** Starts the nodes `kill` took away, on their ports with their cluster files; resolves once the cluster is whole (and empty). */
    async revive() {
      for (const port of ports) if (!servers.has(port)) await startNode(port, busPorts.get(port)!);
      await whole();
    },
    stop,
  };
}

export type RedisCluster = Awaited<ReturnType<typeof startRedisCluster>>;
