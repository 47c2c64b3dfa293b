/**
 * Real memcached and misbehaving look-alikes for cache tests, all on 127.0.0.1.
 *
 *   const mc = await startMemcached();          // a real `memcached` from PATH on a free port
 *   mc.address;                                 // "127.0.0.1:PORT", for [cache.memcached] servers
 *   await mc.stop(); await mc.restart();        // same port, empty cache after restart
 *
 *   const hole = await startBlackholeServer();  // accepts, reads, never answers
 *   const closing = await startClosingServer(); // accepts, reads the request, closes the socket
 *   const junk = await startGarbageServer('frames' | 'bytes');
 *   const slow = await startLatencyProxy(mc.address, 150); // forwards with added latency
 *   x.address; x.bytesReceived; x.connections; await x.stop();
 *
 *   await listItems(mc.address);                // [{ key, exp, size }] of every stored item
 *
 * Every helper's stop() destroys its sockets, so a test process never hangs on them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { canConnect } from './listen.js';
import { sleep } from './wait.js';

export const MEMCACHED_MISSING = 'memcached is not installed: apt-get install memcached';

export interface RunningMemcached {
  /** "127.0.0.1:PORT" */
  readonly address: string;
  readonly port: number;
  /** Kills the process (SIGKILL: down at once, as in a crash) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts a fresh process on the same port (stopping the old one first if it runs). */
  restart(): Promise<void>;
}

function findOnPath(program: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, program);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** A port that was free a moment ago (listen on 0, read it, close). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Spawns memcached on `port` and waits (at most 5 s) until it accepts connections. */
async function spawnMemcached(binary: string, port: number): Promise<ChildProcess> {
  const args = ['-l', '127.0.0.1', '-p', String(port), '-U', '0', '-m', '64', '-t', '2'];
  if (process.getuid?.() === 0) args.push('-u', 'root'); // memcached refuses root without -u
  const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.on('error', () => undefined); // reported through the exit check below
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`memcached exited at start-up (port ${port}): ${stderr.trim()}`);
    }
    if (await canConnect(port)) return child;
    await sleep(20);
  }
  child.kill('SIGKILL');
  await exited(child);
  throw new Error(`memcached did not accept connections on 127.0.0.1:${port} within 5 s: ${stderr.trim()}`);
}

/** SIGKILL: memcached's own shutdown on SIGTERM takes most of a second, and "down" needs no goodbye. */
async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGKILL');
  await exited(child);
}

/**
 * Starts a real memcached from PATH on a free 127.0.0.1 port (UDP off). Throws
 * MEMCACHED_MISSING when there is no memcached on PATH.
 */
export async function startMemcached(): Promise<RunningMemcached> {
  const binary = findOnPath('memcached');
  if (!binary) throw new Error(MEMCACHED_MISSING);
  let child: ChildProcess | undefined;
  let port = 0;
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    try {
      child = await spawnMemcached(binary, port);
      break;
    } catch (error) {
      if (attempt >= 3) throw error; // the free port may have been taken in between: retry
    }
  }
  return {
    address: `127.0.0.1:${port}`,
    port,
    async stop() {
      await stopChild(child);
    },
    async restart() {
      await stopChild(child);
      child = await spawnMemcached(binary, port);
    },
  };
}

export interface FakeServer {
  /** "127.0.0.1:PORT" */
  readonly address: string;
  /** Bytes received from clients so far, over all connections. */
  readonly bytesReceived: number;
  /** Connections accepted so far. */
  readonly connections: number;
  /** Destroys every open socket and closes the listener. */
  stop(): Promise<void>;
}

/** A TCP server on 127.0.0.1:0 that hands each socket to `onSocket` and counts traffic. */
async function startFakeServer(onSocket: (socket: net.Socket) => void): Promise<FakeServer> {
  const sockets = new Set<net.Socket>();
  let bytesReceived = 0;
  let connections = 0;
  const server = net.createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => (bytesReceived += chunk.length));
    onSocket(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    address: `127.0.0.1:${port}`,
    get bytesReceived() {
      return bytesReceived;
    },
    get connections() {
      return connections;
    },
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Accepts connections and reads requests but never answers: every call must time out. */
export function startBlackholeServer(): Promise<FakeServer> {
  return startFakeServer(() => undefined);
}

/** Accepts, reads the first request, then closes the socket without answering. */
export function startClosingServer(): Promise<FakeServer> {
  return startFakeServer((socket) => socket.once('data', () => socket.destroy()));
}

/**
 * Answers with junk.
 * - `frames`: every binary-protocol request gets a well-formed response (its opcode and opaque,
 *   status 0) whose value is junk bytes, i.e. a "hit" that no gateway wrote.
 * - `bytes`: every chunk received is answered with bytes that are not the binary protocol at all.
 */
export function startGarbageServer(mode: 'frames' | 'bytes'): Promise<FakeServer> {
  return startFakeServer((socket) => {
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      if (mode === 'bytes') {
        socket.write('HTTP/1.1 500 Nope\r\nERROR\r\n\xff\xfe garbage \x00\x01\x02');
        return;
      }
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 24) {
        const bodyLength = buffered.readUInt32BE(8);
        if (buffered.length < 24 + bodyLength) break;
        const value = Buffer.from([0xff, 0x00, 0x7b, 0x22, 0xfe]); // not marked JSON
        const response = Buffer.alloc(24 + 4 + value.length);
        response.writeUInt8(0x81, 0); // response magic
        response.writeUInt8(buffered.readUInt8(1), 1); // opcode
        response.writeUInt8(4, 4); // extras: 4 bytes of flags
        response.writeUInt32BE(4 + value.length, 8); // total body
        response.writeUInt32BE(buffered.readUInt32BE(12), 12); // opaque
        value.copy(response, 28);
        socket.write(response);
        buffered = buffered.subarray(24 + bodyLength);
      }
    });
  });
}

/**
 * A TCP proxy to `target` ("host:port") that delays every chunk, in both directions, by
 * `delayMs` (order kept). Sequential calls through it cost one delay pair each; concurrent calls
 * share them.
 */
export function startLatencyProxy(target: string, delayMs: number): Promise<FakeServer> {
  const [host, port] = target.split(':');
  return startFakeServer((client) => {
    const upstream = net.connect(Number(port), host);
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('data', (chunk: Buffer) => setTimeout(() => upstream.write(chunk), delayMs));
    upstream.on('data', (chunk: Buffer) => setTimeout(() => client.destroyed || client.write(chunk), delayMs));
  });
}

export interface StoredItem {
  /** The memcached key, decoded. */
  readonly key: string;
  /** Absolute expiry time in Unix seconds, -1 for none. */
  readonly exp: number;
  /** Item size in bytes as memcached accounts it (key, value and overhead). */
  readonly size: number;
}

/**
 * Lists every item a real memcached holds, with its expiry, via the text command
 * `lru_crawler metadump all` (retried while the crawler is busy; at most 2 s in all).
 */
export async function listItems(address: string): Promise<StoredItem[]> {
  const [host, port] = address.split(':');
  const deadline = Date.now() + 2000;
  for (;;) {
    const text = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), host);
      let received = '';
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`memcached ${address} did not finish a metadump within 2 s`));
      }, 2000);
      socket.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('latin1');
        if (/(^|\n)(END|BUSY[^\r\n]*|ERROR[^\r\n]*|CLIENT_ERROR[^\r\n]*)\r\n$/.test(received)) {
          clearTimeout(timer);
          socket.destroy();
          resolve(received);
        }
      });
      socket.write('lru_crawler metadump all\r\n');
    });
    if (text.startsWith('BUSY') && Date.now() < deadline) {
      await sleep(50);
      continue;
    }
    if (!/(^|\n)END\r\n$/.test(text)) throw new Error(`unexpected metadump answer: ${text.slice(0, 200)}`);
    return text
      .split(/\r?\n/)
      .filter((line) => line.startsWith('key='))
      .map((line) => {
        const fields = new Map(line.split(' ').map((part) => part.split('=', 2) as [string, string]));
        return {
          key: decodeURIComponent(fields.get('key') ?? ''),
          exp: Number(fields.get('exp')),
          size: Number(fields.get('size')),
        };
      });
  }
}
