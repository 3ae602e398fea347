// The part of `torch.distributed` that CleanRL's ppo_atari_multigpu.py uses, with its names and semantics:
//
//   await initProcessGroup({ backend: "tcp" })   // dist.init_process_group("gloo"), reading torchrun's env vars
//   await allReduce(grads, "sum")                // dist.all_reduce(all_grads, op=dist.ReduceOp.SUM), in place
//   await broadcast(params, 0)                   // dist.broadcast(tensor, src=0), in place
//   await allGatherObject(value)                 // dist.all_gather_object(...): every rank's value, in rank order
//   await barrier()                              // dist.barrier()
//   await destroyProcessGroup()                  // dist.destroy_process_group()
//   getRank(), getWorldSize()                    // dist.get_rank(), dist.get_world_size()
//
// The one backend, "tcp", plays gloo's role: plain TCP sockets (`node:net`), so it works across machines as well
// as on one. The differences from torch are the ones JavaScript imposes: collectives are async (await them), and
// they work on Float32Arrays (what `tensor.dataSync()` gives), not tensors.
//
// How it works:
// - Rendezvous (torch's TCPStore role): rank 0 listens at MASTER_ADDR:MASTER_PORT; every other rank connects
//   (retrying until the timeout, as ranks start in any order) and says hello with its rank, the world size it was
//   told and the address of its own data listener. Once all have arrived rank 0 sends everyone the address table.
//   These "control" connections stay open: rank 0 notices any rank that disappears and tells the others.
// - Data: a ring. Each rank connects to rank+1 and accepts a connection from rank-1, and every collective runs on
//   that ring. all-reduce is the bandwidth-optimal ring algorithm (Patarasuk & Yuan 2009, what gloo and NCCL do):
//   the buffer is cut into worldSize chunks; a reduce-scatter of worldSize-1 steps (send one chunk to the next
//   rank, add the chunk received from the previous one) leaves each rank owning one fully summed chunk, and an
//   all-gather of worldSize-1 steps passes the summed chunks round. Each rank sends and receives
//   2·(worldSize-1)/worldSize of the buffer, whatever the world size. Broadcast is a pipelined pass round the ring.
// - Framing, tiny on purpose: every data message is a 16-byte header [op, seq, count, payloadBytes] (uint32,
//   little-endian) and its payload, read straight into the destination array. `op` and `seq` (the how-many-th
//   collective) catch ranks that call different collectives; `count` (the sender's number of floats) makes a size
//   mismatch a clear error rather than garbage. A length-prefix library would not carry these fields nor read into
//   a caller's Float32Array, so the 30 lines are here (tests/distributed.test.ts covers them).
// - Failure is never a hang. A rank that exits or is killed closes its sockets; its neighbours notice when they
//   next need its data, rank 0 notices on the control connection, and whoever notices first sends an abort
//   message to the others, so every rank throws `DistributedError` naming the missing rank. A rank that stalls
//   without dying is caught by the timeout (default 30 s, `timeoutMs` or DIST_TIMEOUT_S) on every wait. A dead
//   rank is noticed at the next collective: the training loop's rollout is synchronous, so sockets are only read
//   while a collective is awaited.
// - No shared-memory same-host path: the all-reduce of the Nature CNN's 6.7 MB of gradients over loopback TCP is a
//   few percent of an iteration on a CPU (benchmark/README.md, "All-reduce"), so there is nothing measurable to win.
// Byte order is the host's (little-endian on every platform Node ships for).

import { type AddressInfo, type Server, type Socket, connect, createServer } from "node:net";

export type Backend = "tcp";
export type ReduceOp = "sum";

export interface InitOptions {
  /** Only "tcp" (gloo's role). Default "tcp". */
  backend?: Backend;
  /** This process's rank; default from the launcher's environment (`launchEnv`: torchrun, Open MPI, Slurm), else 0. */
  rank?: number;
  /** Number of processes; default from the launcher's environment, else 1. */
  worldSize?: number;
  /** Rendezvous host; default MASTER_ADDR (Slurm: the job step's first node), else 127.0.0.1. */
  masterAddr?: string;
  /** Rendezvous port; default MASTER_PORT, else 29500 (torch's default). */
  masterPort?: number;
  /** Longest wait for another rank, in milliseconds; default DIST_TIMEOUT_S × 1000, else 30 s. */
  timeoutMs?: number;
}

/** Every failure of the process group: a missing rank, a timeout, a size mismatch. The message is one line. */
export class DistributedError extends Error {}

const OP_ALLREDUCE = 1;
const OP_BROADCAST = 2;
const OP_ABORT = 255;
const OP_NAMES: Record<number, string> = {
  [OP_ALLREDUCE]: "allReduce",
  [OP_BROADCAST]: "broadcast",
  [OP_ABORT]: "abort",
};
const HEADER_BYTES = 16;
/** Broadcast forwards in pieces of this many floats, so a long ring works as a pipeline. */
const BROADCAST_PIECE = 1 << 18;

interface Group {
  rank: number;
  worldSize: number;
  timeoutMs: number;
  /** Connection to rank+1 (we send) and from rank-1 (we receive); null when worldSize is 1. */
  next: Peer | null;
  prev: Peer | null;
  /** Control connections: on rank 0, one per other rank; elsewhere, the one to rank 0. */
  control: Map<number, Socket>;
  /** Set once by the first failure anyone notices; every later wait throws it. */
  failure: DistributedError | null;
  /** Collective calls so far; the `seq` field of each message. */
  seq: number;
  /** True once destroyProcessGroup started: connections closing are then expected. */
  closing: boolean;
  /**
   * allReduce's receive buffer, kept between calls and grown when a call needs more: a training run all-reduces the
   * same gradient (1.7M floats for the Nature CNN) every minibatch, so after the first call it allocates nothing.
   */
  incoming: Float32Array;
}

let group: Group | null = null;

// ---------------------------------------------------------------------------------------------------------------
// A peer on the ring: a socket whose incoming bytes are queued until a collective reads them.

class Peer {
  private chunks: Buffer[] = [];
  private head = 0; // bytes of chunks[0] already consumed
  private buffered = 0;
  private closed = false;
  private wake: (() => void) | null = null;

  constructor(
    readonly socket: Socket,
    readonly rank: number,
  ) {
    socket.setNoDelay(true);
    socket.on("data", (data: Buffer) => {
      this.chunks.push(data);
      this.buffered += data.length;
      this.notify();
    });
    const onClose = () => {
      this.closed = true;
      this.notify();
    };
    socket.on("close", onClose);
    socket.on("end", onClose);
    socket.on("error", onClose);
  }

  notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  /** Fills `into` with the next `into.length` bytes, waiting for them (at most the group's timeout). */
  async readInto(into: Uint8Array, g: Group, what: string): Promise<void> {
    const deadline = Date.now() + g.timeoutMs;
    while (this.buffered < into.length) {
      if (g.failure) throw g.failure;
      if (this.closed) {
        throw fail(
          g,
          g.closing
            ? `rank ${this.rank} left the group while ${what} still needed it`
            : `rank ${this.rank} is gone: its connection closed during ${what} (it exited or was killed)`,
        );
      }
      const left = deadline - Date.now();
      if (left <= 0) throw fail(g, `timed out after ${g.timeoutMs / 1000} s waiting for rank ${this.rank} in ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    let filled = 0;
    while (filled < into.length) {
      const chunk = this.chunks[0];
      const take = Math.min(chunk.length - this.head, into.length - filled);
      into.set(chunk.subarray(this.head, this.head + take), filled);
      filled += take;
      this.head += take;
      if (this.head === chunk.length) {
        this.chunks.shift();
        this.head = 0;
      }
    }
    this.buffered -= into.length;
  }
}

/** Records the group's first failure, tells every other rank (best effort) and returns it for throwing. */
function fail(g: Group, message: string): DistributedError {
  if (g.failure) return g.failure;
  g.failure = new DistributedError(`rank ${g.rank}: ${message}`);
  const text = Buffer.from(g.failure.message, "utf8");
  for (const peer of [g.next, g.prev]) {
    if (peer && !peer.socket.destroyed) peer.socket.write(frame(OP_ABORT, g.seq, 0, text));
  }
  for (const socket of g.control.values()) {
    if (!socket.destroyed) socket.write(`${JSON.stringify({ type: "abort", message: g.failure.message })}\n`);
  }
  g.next?.notify();
  g.prev?.notify();
  return g.failure;
}

/** Adopts a failure another rank reported (an abort message), without echoing it back. */
function adopt(g: Group, message: string): void {
  if (g.failure) return;
  g.failure = new DistributedError(message);
  g.next?.notify();
  g.prev?.notify();
}

function frame(op: number, seq: number, count: number, payload: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(HEADER_BYTES + payload.byteLength);
  out.writeUInt32LE(op, 0);
  out.writeUInt32LE(seq, 4);
  out.writeUInt32LE(count, 8);
  out.writeUInt32LE(payload.byteLength, 12);
  // A copy: the caller may overwrite its array before the socket has flushed it.
  out.set(payload, HEADER_BYTES);
  return out;
}

function bytesOf(a: Float32Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

function send(g: Group, op: number, count: number, data: Float32Array): void {
  g.next!.socket.write(frame(op, g.seq, count, bytesOf(data)));
}

/** Receives one message of collective `op` from rank-1 into `into`, checking it belongs to the same call. */
async function receive(g: Group, op: number, count: number, into: Float32Array): Promise<void> {
  const peer = g.prev!;
  const what = `${OP_NAMES[op]} #${g.seq}`;
  const header = new Uint8Array(HEADER_BYTES);
  await peer.readInto(header, g, what);
  const view = new DataView(header.buffer);
  const [theirOp, theirSeq, theirCount, bytes] = [0, 4, 8, 12].map((o) => view.getUint32(o, true));
  if (theirOp === OP_ABORT) {
    const text = new Uint8Array(bytes);
    await peer.readInto(text, g, what);
    adopt(g, Buffer.from(text).toString("utf8"));
    throw g.failure!;
  }
  if (theirOp !== op || theirSeq !== g.seq) {
    throw fail(
      g,
      `rank ${peer.rank} called ${OP_NAMES[theirOp] ?? `op ${theirOp}`} #${theirSeq} while this rank called ${what}: every rank must make the same collective calls in the same order`,
    );
  }
  if (theirCount !== count)
    throw fail(g, `size mismatch in ${what}: rank ${peer.rank} has ${theirCount} floats, rank ${g.rank} has ${count}`);
  if (bytes !== into.byteLength)
    throw fail(g, `malformed message from rank ${peer.rank} in ${what}: ${bytes} bytes, expected ${into.byteLength}`);
  await peer.readInto(bytesOf(into), g, what);
}

// ---------------------------------------------------------------------------------------------------------------
// Public API

function env(name: string): string | undefined {
  const v = process.env[name];
  return v === undefined || v === "" ? undefined : v;
}

/** Who started this process and where it stands in the group. */
export interface LaunchEnv {
  launcher: "torchrun" | "open mpi" | "slurm" | "none";
  rank: number;
  worldSize: number;
  /** The rank among this machine's processes (picks the GPU). */
  localRank: number;
  localWorldSize: number;
  masterAddr: string;
  masterPort: number;
}

/**
 * The group as the launcher describes it in the environment, whichever started this process:
 *   torchrun and Kubernetes' PyTorchJob: RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT;
 *   Open MPI's mpirun: OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK, _LOCAL_SIZE (no address: MASTER_ADDR, which
 *     `mpirun -x MASTER_ADDR=host` passes on, else this machine);
 *   Slurm's srun: SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID, SLURM_TASKS_PER_NODE, and the first host of the job
 *     step's node list (SLURM_STEP_NODELIST, else SLURM_JOB_NODELIST) as the master unless MASTER_ADDR is set.
 * Checked in that order: torchrun run inside a Slurm job sets RANK, and mpirun inside an sbatch script inherits the
 * batch step's SLURM_PROCID (0 on every rank), so the launcher closest to the process wins. MASTER_PORT overrides
 * the port everywhere (default 29500, torch's). No launcher: rank 0 of 1.
 */
export function launchEnv(vars: Record<string, string | undefined> = process.env): LaunchEnv {
  const get = (name: string) => (vars[name] === undefined || vars[name] === "" ? undefined : vars[name]);
  const int = (name: string, fallback: number): number => {
    const raw = get(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 0)
      throw new DistributedError(`${name}=${raw} is not a non-negative integer`);
    return value;
  };
  const masterPort = int("MASTER_PORT", 29500);
  if (get("RANK") !== undefined || get("WORLD_SIZE") !== undefined) {
    return {
      launcher: "torchrun",
      rank: int("RANK", 0),
      worldSize: int("WORLD_SIZE", 1),
      localRank: int("LOCAL_RANK", 0),
      localWorldSize: int("LOCAL_WORLD_SIZE", 1),
      masterAddr: get("MASTER_ADDR") ?? "127.0.0.1",
      masterPort,
    };
  }
  if (get("OMPI_COMM_WORLD_RANK") !== undefined) {
    return {
      launcher: "open mpi",
      rank: int("OMPI_COMM_WORLD_RANK", 0),
      worldSize: int("OMPI_COMM_WORLD_SIZE", 1),
      localRank: int("OMPI_COMM_WORLD_LOCAL_RANK", 0),
      localWorldSize: int("OMPI_COMM_WORLD_LOCAL_SIZE", 1),
      masterAddr: get("MASTER_ADDR") ?? "127.0.0.1",
      masterPort,
    };
  }
  if (get("SLURM_PROCID") !== undefined) {
    const nodes = get("SLURM_STEP_NODELIST") ?? get("SLURM_JOB_NODELIST");
    const first = nodes === undefined ? undefined : expandHostlist(nodes)[0];
    // SLURM_TASKS_PER_NODE reads like "2(x3),1": tasks per node, run-length encoded; this node's count is taken
    // from the first entry (homogeneous jobs, the usual case for data-parallel training).
    const perNode = /^(\d+)/.exec(get("SLURM_TASKS_PER_NODE") ?? "1");
    return {
      launcher: "slurm",
      rank: int("SLURM_PROCID", 0),
      worldSize: int("SLURM_NTASKS", 1),
      localRank: int("SLURM_LOCALID", 0),
      localWorldSize: perNode ? Number(perNode[1]) : 1,
      masterAddr: get("MASTER_ADDR") ?? first ?? "127.0.0.1",
      masterPort,
    };
  }
  return {
    launcher: "none",
    rank: 0,
    worldSize: 1,
    localRank: 0,
    localWorldSize: 1,
    masterAddr: get("MASTER_ADDR") ?? "127.0.0.1",
    masterPort,
  };
}

/**
 * Slurm's compressed host list, expanded in order: `node[01-04,07],gpu7` is node01, node02, node03, node04,
 * node07, gpu7 (zero padding kept, several bracket groups in one name multiply out, as `scontrol show hostnames`).
 */
export function expandHostlist(list: string): string[] {
  const bad = () => new DistributedError(`cannot read the Slurm host list "${list}"`);
  // Split at the commas outside brackets.
  const names: string[] = [];
  let depth = 0;
  let startAt = 0;
  for (let i = 0; i < list.length; i++) {
    if (list[i] === "[") depth++;
    else if (list[i] === "]") depth--;
    else if (list[i] === "," && depth === 0) {
      names.push(list.slice(startAt, i));
      startAt = i + 1;
    }
    if (depth < 0 || depth > 1) throw bad();
  }
  if (depth !== 0) throw bad();
  names.push(list.slice(startAt));
  const expand = (name: string): string[] => {
    const open = name.indexOf("[");
    if (open < 0) return name === "" ? [] : [name];
    const close = name.indexOf("]", open);
    const head = name.slice(0, open);
    const tails = expand(name.slice(close + 1));
    const values = name
      .slice(open + 1, close)
      .split(",")
      .flatMap((range) => {
        const m = /^(\d+)(?:-(\d+))?$/.exec(range);
        if (!m) throw bad();
        const [lo, hi] = [Number(m[1]), Number(m[2] ?? m[1])];
        if (hi < lo || hi - lo > 100_000) throw bad();
        return Array.from({ length: hi - lo + 1 }, (_, k) => String(lo + k).padStart(m[1].length, "0"));
      });
    return values.flatMap((v) => (tails.length === 0 ? [head + v] : tails.map((t) => head + v + t)));
  };
  const hosts = names.flatMap(expand);
  if (hosts.length === 0) throw bad();
  return hosts;
}

/** `dist.get_rank()`: 0 without a process group, as a script run directly is rank 0 of 1. */
export function getRank(): number {
  return group?.rank ?? 0;
}

/** `dist.get_world_size()`: 1 without a process group. */
export function getWorldSize(): number {
  return group?.worldSize ?? 1;
}

/**
 * `dist.init_process_group(backend)`: joins the group (rendezvous at MASTER_ADDR:MASTER_PORT, then the ring).
 * Resolves once every rank has arrived; rejects with a DistributedError naming the missing ranks after the timeout.
 */
export async function initProcessGroup(opts: InitOptions = {}): Promise<void> {
  if (group) throw new DistributedError("the process group is already initialized");
  const backend = opts.backend ?? "tcp";
  if (backend !== "tcp") throw new DistributedError(`unknown backend "${backend}" (only "tcp")`);
  const launched = launchEnv();
  const rank = opts.rank ?? launched.rank;
  const worldSize = opts.worldSize ?? launched.worldSize;
  const masterAddr = opts.masterAddr ?? launched.masterAddr;
  const masterPort = opts.masterPort ?? launched.masterPort;
  const timeoutMs =
    opts.timeoutMs ?? (env("DIST_TIMEOUT_S") !== undefined ? Number(env("DIST_TIMEOUT_S")) * 1000 : 30_000);
  if (worldSize < 1) throw new DistributedError(`world size must be at least 1, got ${worldSize}`);
  if (rank >= worldSize) throw new DistributedError(`rank ${rank} is out of range for world size ${worldSize}`);
  if (!(timeoutMs > 0)) throw new DistributedError(`the timeout must be positive, got ${timeoutMs} ms`);

  const g: Group = {
    rank,
    worldSize,
    timeoutMs,
    next: null,
    prev: null,
    control: new Map(),
    failure: null,
    seq: 0,
    closing: false,
    incoming: new Float32Array(0),
  };
  if (worldSize > 1) {
    const loopback = ["127.0.0.1", "localhost", "::1"].includes(masterAddr);
    // The data listener: on all interfaces for a multi-machine group, on loopback when the group is local.
    const dataServer = await listen(0, loopback ? masterAddr : undefined);
    const dataPort = (dataServer.address() as AddressInfo).port;
    const deadline = Date.now() + timeoutMs;
    // Accept rank-1's connection from now on: it may come as soon as rank-1 has the table, before we have it.
    const prevSocket = acceptPrev(g, dataServer, deadline);
    prevSocket.catch(() => {}); // awaited in connectRing; a rendezvous failure must not leave it unhandled
    try {
      const table =
        rank === 0
          ? await rendezvousMaster(g, masterAddr, masterPort, loopback, dataPort, deadline)
          : await rendezvousWorker(g, masterAddr, masterPort, dataPort, deadline);
      await connectRing(g, dataServer, prevSocket, table);
    } catch (e) {
      // Leave nothing open that would keep a caller who handles the error alive.
      dataServer.close();
      for (const socket of g.control.values()) socket.destroy();
      g.next?.socket.destroy();
      throw e;
    }
  }
  group = g;
}

/** `dist.all_reduce(tensor, op=ReduceOp.SUM)`: replaces `buffer` on every rank by the element-wise sum over ranks. */
export async function allReduce(buffer: Float32Array, op: ReduceOp = "sum"): Promise<void> {
  const g = requireGroup("allReduce");
  if (op !== "sum") throw new DistributedError(`unsupported reduce op "${op}" (only "sum")`);
  g.seq++;
  const W = g.worldSize;
  if (W === 1) return;
  const n = buffer.length;
  const start = (c: number) => Math.floor((c * n) / W);
  const chunk = (c: number) => buffer.subarray(start(c), start(c + 1));
  const mod = (i: number) => ((i % W) + W) % W;
  if (g.incoming.length < Math.ceil(n / W)) g.incoming = new Float32Array(Math.ceil(n / W));
  const incoming = g.incoming; // every element read below is first overwritten by receive()
  // Reduce-scatter: after step s this rank holds the sum over s+2 ranks of chunk (rank-s-1).
  for (let s = 0; s < W - 1; s++) {
    send(g, OP_ALLREDUCE, n, chunk(mod(g.rank - s)));
    const target = chunk(mod(g.rank - s - 1));
    const got = incoming.subarray(0, target.length);
    await receive(g, OP_ALLREDUCE, n, got);
    for (let i = 0; i < target.length; i++) target[i] += got[i];
  }
  // All-gather: this rank owns the full sum of chunk (rank+1); pass the finished chunks round the ring.
  for (let s = 0; s < W - 1; s++) {
    send(g, OP_ALLREDUCE, n, chunk(mod(g.rank + 1 - s)));
    await receive(g, OP_ALLREDUCE, n, chunk(mod(g.rank - s)));
  }
}

/** `dist.broadcast(tensor, src)`: every rank's `buffer` becomes rank `src`'s. */
export async function broadcast(buffer: Float32Array, src = 0): Promise<void> {
  const g = requireGroup("broadcast");
  if (!Number.isInteger(src) || src < 0 || src >= g.worldSize)
    throw new DistributedError(`broadcast source rank ${src} is out of range for world size ${g.worldSize}`);
  g.seq++;
  if (g.worldSize === 1) return;
  const n = buffer.length;
  const forward = (g.rank + 1) % g.worldSize !== src;
  // One message even for an empty buffer, so a size mismatch is still caught.
  for (let offset = 0; offset === 0 || offset < n; offset += BROADCAST_PIECE) {
    const piece = buffer.subarray(offset, Math.min(n, offset + BROADCAST_PIECE));
    if (g.rank !== src) await receive(g, OP_BROADCAST, n, piece);
    if (g.rank === src || forward) send(g, OP_BROADCAST, n, piece);
  }
}

/**
 * `dist.all_gather_object(obj)`: every rank's JSON-serializable value, in rank order. For small values (generator
 * states): their bytes travel as floats 0-255 through two all-reduces (lengths, then bytes), which sum exactly.
 */
export async function allGatherObject(value: unknown): Promise<unknown[]> {
  const g = requireGroup("allGatherObject");
  const mine = Buffer.from(JSON.stringify(value), "utf8");
  const lengths = new Float32Array(g.worldSize);
  lengths[g.rank] = mine.length;
  await allReduce(lengths);
  const width = Math.max(...lengths);
  const bytes = new Float32Array(g.worldSize * width);
  bytes.set(mine, g.rank * width);
  await allReduce(bytes);
  return Array.from(lengths, (n, r) =>
    JSON.parse(Buffer.from(Uint8Array.from(bytes.subarray(r * width, r * width + n))).toString("utf8")),
  );
}

/** `dist.barrier()`: resolves once every rank has called it. */
export async function barrier(): Promise<void> {
  await allReduce(new Float32Array(1));
}

/** `dist.destroy_process_group()`: closes this rank's connections. Call it on every rank at the end. */
export async function destroyProcessGroup(): Promise<void> {
  const g = group;
  group = null;
  if (!g || g.worldSize === 1) return;
  g.closing = true;
  // Say goodbye on the control connections first, so rank 0 does not report a rank that finished as "gone".
  for (const socket of g.control.values()) if (!socket.destroyed) socket.end(`${JSON.stringify({ type: "bye" })}\n`);
  g.next?.socket.end();
  g.prev?.socket.end();
}

function requireGroup(what: string): Group {
  if (!group) throw new DistributedError(`${what} called before initProcessGroup`);
  if (group.failure) throw group.failure;
  return group;
}

// ---------------------------------------------------------------------------------------------------------------
// Rendezvous and ring set-up

interface Address {
  host: string;
  port: number;
}

function listen(port: number, host?: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", (e: NodeJS.ErrnoException) =>
      reject(new DistributedError(`cannot listen on ${host ?? "*"}:${port}: ${e.code ?? e.message}`)),
    );
    server.listen(port, host, () => resolve(server));
  });
}

/** Newline-delimited JSON on a control connection: calls `onMessage` for each complete line. */
function readLines(socket: Socket, onMessage: (msg: Record<string, unknown>) => void): void {
  let pending = "";
  socket.setEncoding("utf8");
  socket.on("data", (text: string) => {
    pending += text;
    let nl: number;
    while ((nl = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      try {
        onMessage(JSON.parse(line));
      } catch {
        // A stray connection (a port scanner, a wrong client) is not worth failing the group for.
      }
    }
  });
}

function sendLine(socket: Socket, msg: Record<string, unknown>): void {
  socket.write(`${JSON.stringify(msg)}\n`);
}

function timeLeft(deadline: number): number {
  return Math.max(0, deadline - Date.now());
}

/** Rank 0: the store. Waits for every rank's hello, then sends everyone the table of data addresses. */
async function rendezvousMaster(
  g: Group,
  masterAddr: string,
  masterPort: number,
  loopback: boolean,
  dataPort: number,
  deadline: number,
): Promise<Address[]> {
  const server = await listen(masterPort, loopback ? masterAddr : undefined);
  const table: (Address | null)[] = Array.from({ length: g.worldSize }, () => null);
  table[0] = { host: masterAddr, port: dataPort };
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        const missing = table.flatMap((a, r) => (a === null ? [r] : []));
        reject(
          new DistributedError(
            `rank 0: rendezvous timed out after ${g.timeoutMs / 1000} s at ${masterAddr}:${masterPort}: rank${missing.length > 1 ? "s" : ""} ${missing.join(", ")} never arrived`,
          ),
        );
      }, timeLeft(deadline));
      server.on("connection", (socket) => {
        socket.setNoDelay(true);
        readLines(socket, (msg) => {
          if (msg.type === "hello") {
            const r = Number(msg.rank);
            let problem: string | null = null;
            if (Number(msg.worldSize) !== g.worldSize)
              problem = `rank ${r} was started with world size ${msg.worldSize}, rank 0 with ${g.worldSize}`;
            else if (!Number.isInteger(r) || r <= 0 || r >= g.worldSize)
              problem = `a process joined with rank ${msg.rank}, out of range for world size ${g.worldSize}`;
            else if (table[r] !== null) problem = `two processes joined as rank ${r}`;
            if (problem) {
              clearTimeout(timer);
              reject(new DistributedError(`rank 0: ${problem}`));
              return;
            }
            // The address this rank reached us from is the one the ring can reach it on.
            table[r] = {
              host: loopback ? masterAddr : String(msg.host ?? socket.remoteAddress),
              port: Number(msg.port),
            };
            g.control.set(r, socket);
            watchControl(g, socket, r);
            if (table.every((a) => a !== null)) {
              clearTimeout(timer);
              resolve();
            }
          }
        });
        socket.on("error", () => {});
      });
    });
  } catch (e) {
    // Tell whoever did arrive, so they stop with the same line instead of waiting out their own timeout.
    for (const socket of g.control.values())
      socket.end(`${JSON.stringify({ type: "abort", message: (e as Error).message })}\n`);
    server.close();
    throw e;
  }
  server.close(); // no more ranks to accept; the control connections stay open
  for (const socket of g.control.values()) sendLine(socket, { type: "table", table });
  return table as Address[];
}

/** Ranks 1..: connect to rank 0 (retrying while it is not up yet), say hello, wait for the table. */
async function rendezvousWorker(
  g: Group,
  masterAddr: string,
  masterPort: number,
  dataPort: number,
  deadline: number,
): Promise<Address[]> {
  let socket: Socket | null = null;
  let lastError = "";
  while (socket === null) {
    if (Date.now() >= deadline)
      throw new DistributedError(
        `rank ${g.rank}: rendezvous timed out after ${g.timeoutMs / 1000} s: rank 0 never answered at ${masterAddr}:${masterPort} (${lastError})`,
      );
    try {
      socket = await new Promise<Socket>((resolve, reject) => {
        const s = connect({ host: masterAddr, port: masterPort });
        s.once("connect", () => resolve(s));
        s.once("error", reject);
      });
    } catch (e) {
      lastError = (e as NodeJS.ErrnoException).code ?? String(e);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  socket.setNoDelay(true);
  socket.on("error", () => {});
  g.control.set(0, socket);
  const control = socket;
  const table = await new Promise<Address[]>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new DistributedError(
            `rank ${g.rank}: rendezvous timed out after ${g.timeoutMs / 1000} s waiting for the other ranks to reach rank 0 at ${masterAddr}:${masterPort}`,
          ),
        ),
      timeLeft(deadline),
    );
    readLines(control, (msg) => {
      if (msg.type === "table") {
        clearTimeout(timer);
        resolve(msg.table as Address[]);
      } else if (msg.type === "abort") {
        clearTimeout(timer);
        reject(new DistributedError(String(msg.message)));
      }
    });
    control.on("close", () => {
      clearTimeout(timer);
      reject(new DistributedError(`rank ${g.rank}: rank 0 is gone: it closed the rendezvous connection`));
    });
    sendLine(control, {
      type: "hello",
      rank: g.rank,
      worldSize: g.worldSize,
      host: control.localAddress,
      port: dataPort,
    });
  });
  watchControl(g, control, 0);
  return table;
}

/** After the rendezvous, a control connection carries only aborts and goodbyes; a silent close is a lost rank. */
function watchControl(g: Group, socket: Socket, peerRank: number): void {
  let saidBye = false;
  readLines(socket, (msg) => {
    if (msg.type === "bye") saidBye = true;
    else if (msg.type === "abort") {
      adopt(g, String(msg.message));
      // Rank 0 relays an abort from one rank to all the others.
      if (g.rank === 0) for (const [r, s] of g.control) if (r !== peerRank && !s.destroyed) sendLine(s, msg);
    }
  });
  socket.on("close", () => {
    if (!saidBye && !g.closing)
      fail(
        g,
        `rank ${peerRank} is gone: its connection to ${g.rank === 0 ? "this rank" : "rank 0"} closed (it exited or was killed)`,
      );
  });
}

/** The connection from rank-1 to this rank's data listener, recognised by the 4-byte rank it sends first. */
function acceptPrev(g: Group, server: Server, deadline: number): Promise<Socket> {
  const prevRank = (g.rank - 1 + g.worldSize) % g.worldSize;
  return new Promise<Socket>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new DistributedError(
            `rank ${g.rank}: timed out after ${g.timeoutMs / 1000} s waiting for rank ${prevRank} to connect`,
          ),
        ),
      timeLeft(deadline),
    );
    server.once("close", () => clearTimeout(timer));
    server.on("connection", (socket) => {
      socket.once("data", (hello: Buffer) => {
        if (hello.length >= 4 && hello.readUInt32LE(0) === prevRank) {
          clearTimeout(timer);
          socket.pause();
          if (hello.length > 4) socket.unshift(hello.subarray(4));
          resolve(socket);
        } else socket.destroy();
      });
      socket.on("error", () => {});
    });
  });
}

/** Connects to rank+1's data listener (naming itself in 4 bytes) and takes rank-1's accepted connection. */
async function connectRing(g: Group, server: Server, prevSocket: Promise<Socket>, table: Address[]): Promise<void> {
  const nextRank = (g.rank + 1) % g.worldSize;
  const { host, port } = table[nextRank];
  const outgoing = await new Promise<Socket>((resolve, reject) => {
    const s = connect({ host, port });
    s.once("connect", () => resolve(s));
    s.once("error", (e: NodeJS.ErrnoException) =>
      reject(
        new DistributedError(
          `rank ${g.rank}: cannot connect to rank ${nextRank} at ${host}:${port}: ${e.code ?? e.message}`,
        ),
      ),
    );
  });
  const hello = Buffer.alloc(4);
  hello.writeUInt32LE(g.rank, 0);
  outgoing.write(hello);
  g.next = new Peer(outgoing, nextRank);
  const incoming = await prevSocket;
  server.close();
  g.prev = new Peer(incoming, (g.rank - 1 + g.worldSize) % g.worldSize);
  incoming.resume();
}
