/**
 * Serves Gleaner over MCP stdio (stdout carries protocol only; logs go to stderr).
 *
 * The transport is a small newline-delimited JSON-RPC reader over web streams
 * rather than the SDK's Node-stream one, so that the end of input closes the
 * server cleanly (after answering what was already asked) and a line over the
 * size limit fails that one request instead of the session.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { getGleanerLogger } from "../lib/log.ts";
import type { AnyToolSpec } from "../lib/tools/spec.ts";
import { defaultToolsFor } from "../lib/tools/default_tools.ts";
import { TOOLS } from "../lib/tools/mod.ts";
import { createMcpServer, type GleanerSource } from "./server.ts";

/** Largest JSON-RPC line accepted on stdin (4 MiB, as for HTTP request bodies). */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

type Id = string | number;

const log = getGleanerLogger("mcp");

/** Bytes kept of each end of an oversized line, to find its id (the rest is discarded). */
const KEPT_BYTES = 4096;
// A JSON-RPC id as JSON text: a number or a short string.
const ID = String.raw`(-?\d{1,20}(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.){0,256}")`;
// A request starts with its top-level keys: "method", perhaps after "jsonrpc" and "id".
const REQUEST_HEAD = new RegExp(
  String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?(?:"id"\s*:\s*${ID}\s*,\s*)?"method"\s*:`,
);
// ... or ends with its top-level "id" (as the TypeScript SDK writes requests).
const TAIL_ID = new RegExp(String.raw`[,{]\s*"id"\s*:\s*${ID}\s*\}\s*$`);

/**
 * A newline-delimited JSON-RPC transport over a byte stream pair.
 *
 * - End of input: waits until every request already read has been answered,
 *   then closes ({@link LineTransport.failure} stays undefined).
 * - A line that is not JSON: answers a JSON-RPC parse error (-32700) and goes on.
 * - A line over `maxLineBytes`: never held whole (its first and last 4 KiB are
 *   kept, the rest discarded as it streams). When those show a request, it is
 *   answered with an Invalid Request error (-32600) under its own id (or
 *   `null` when the id cannot be found); anything else gets a parse error
 *   (-32700, id `null`), as JSON-RPC 2.0 specifies. The session goes on.
 *
 * @example
 * ```ts
 * import { LineTransport } from "./stdio.ts";
 * const input = ReadableStream.from([new TextEncoder().encode("not json\n")]);
 * const out: string[] = [];
 * const output = new WritableStream<Uint8Array>({
 *   write: (chunk) => void out.push(new TextDecoder().decode(chunk)),
 * });
 * const transport = new LineTransport(input, output);
 * const closed = new Promise<void>((resolve) => transport.onclose = resolve);
 * await transport.start();
 * await closed;
 * console.assert(JSON.parse(out[0]).error.code === -32700);
 * ```
 */
export class LineTransport implements Transport {
  /** Called once when the transport has closed. */
  onclose?: () => void;
  /** Called on a read or protocol error. */
  onerror?: (error: Error) => void;
  /** Called with each JSON-RPC message read. */
  onmessage?: (message: JSONRPCMessage) => void;
  #input: ReadableStream<Uint8Array>;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #reader?: ReadableStreamDefaultReader<Uint8Array>;
  #maxLineBytes: number;
  #pending = new Set<Id>();
  #drained?: () => void;
  #closed = false;
  #encoder = new TextEncoder();

  /** Reads messages from `input` and writes them to `output`, one per line. */
  constructor(
    input: ReadableStream<Uint8Array>,
    output: WritableStream<Uint8Array>,
    maxLineBytes: number = MAX_LINE_BYTES,
  ) {
    this.#input = input;
    this.#writer = output.getWriter();
    this.#maxLineBytes = maxLineBytes;
  }

  /** Starts reading in the background. */
  start(): Promise<void> {
    this.#reader = this.#input.getReader();
    this.#read(this.#reader).catch((error) => this.onerror?.(asError(error)));
    return Promise.resolve();
  }

  /** Writes one message as a line. */
  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return;
    await this.#writer.write(this.#encoder.encode(JSON.stringify(message) + "\n"));
    if ("id" in message && ("result" in message || "error" in message)) {
      this.#settle(message.id as Id);
    }
  }

  /** A request needs no more answer; at the end of input, closing waits for none left. */
  #settle(id: Id): void {
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.#drained?.();
  }

  /** Stops reading and closes. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#reader?.cancel().catch(() => {});
    this.#drained?.();
    this.onclose?.();
  }

  async #read(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const max = this.#maxLineBytes;
    // The line read so far (at most `max` bytes), or, past the limit, its two ends.
    let parts: Uint8Array[] = [];
    let size = 0;
    let over: Oversized | undefined;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done || this.#closed) break;
        for (let start = 0;;) {
          const end = value.indexOf(10, start);
          const piece = value.subarray(start, end === -1 ? value.length : end);
          if (over) {
            over.tail = lastBytes([over.tail, piece], KEPT_BYTES);
            over.size += piece.length;
          } else if (size + piece.length > max) {
            over = {
              head: firstBytes([...parts, piece], KEPT_BYTES),
              tail: lastBytes([...parts, piece], KEPT_BYTES),
              size: size + piece.length,
            };
            parts = [];
            size = 0;
          } else if (piece.length > 0) {
            parts.push(end === -1 ? piece.slice() : piece);
            size += piece.length;
          }
          if (end === -1) break;
          if (over) this.#oversized(over);
          else this.#line(concat(parts, size));
          parts = [];
          size = 0;
          over = undefined;
          start = end + 1;
        }
      }
      if (this.#closed) return;
      if (over) this.#oversized(over);
      else if (size > 0) this.#line(concat(parts, size));
    } catch (error) {
      if (!this.#closed) this.onerror?.(asError(error));
    }
    // End of input: answer what was asked, then close.
    if (this.#pending.size > 0 && !this.#closed) {
      await new Promise<void>((resolve) => this.#drained = resolve);
    }
    await this.close();
  }

  #line(bytes: Uint8Array): void {
    const text = new TextDecoder().decode(bytes).replace(/\r$/, "");
    if (text.trim() === "") return;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      this.#reply(-32700, "Parse error: the line is not JSON");
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(json);
    if (!parsed.success) {
      this.#reply(-32600, "Invalid Request: not a JSON-RPC 2.0 message");
      return;
    }
    const message = parsed.data;
    if ("method" in message && "id" in message) this.#pending.add(message.id as Id);
    if ("method" in message && message.method === "notifications/cancelled") {
      // A cancelled request gets no response: stop waiting for one.
      this.#settle((message.params as { requestId?: Id } | undefined)?.requestId as Id);
    }
    this.onmessage?.(message);
  }

  /** Answers a line that went over the limit; the session goes on. */
  #oversized(line: Oversized): void {
    const limit = this.#maxLineBytes;
    const decoder = new TextDecoder();
    const head = REQUEST_HEAD.exec(decoder.decode(line.head));
    log.warn("MCP stdin: a message line of {size} bytes is over the limit of {limit} bytes", {
      size: line.size,
      limit,
    });
    if (!head) {
      this.#reply(-32700, `Parse error: message line longer than ${limit} bytes (discarded)`);
      return;
    }
    const idText = head[1] ?? TAIL_ID.exec(decoder.decode(line.tail))?.[1];
    let id: Id | null = null;
    try {
      const parsed = idText === undefined ? null : JSON.parse(idText);
      if (typeof parsed === "string" || typeof parsed === "number") id = parsed;
    } catch {
      // not a usable id: answer with null
    }
    this.#reply(
      -32600,
      `Invalid Request: message line longer than ${limit} bytes (discarded)`,
      id,
    );
  }

  #reply(code: number, message: string, id: Id | null = null): void {
    this.#writer.write(
      this.#encoder.encode(
        JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }) + "\n",
      ),
    ).catch((error) => this.onerror?.(asError(error)));
  }
}

/** The two ends of a line over the limit, and its size. */
interface Oversized {
  head: Uint8Array;
  tail: Uint8Array;
  size: number;
}

/** The first `n` bytes of the parts, copied. */
function firstBytes(parts: Uint8Array[], n: number): Uint8Array {
  const out = new Uint8Array(Math.min(n, parts.reduce((sum, p) => sum + p.length, 0)));
  let at = 0;
  for (const part of parts) {
    if (at === out.length) break;
    const take = part.subarray(0, out.length - at);
    out.set(take, at);
    at += take.length;
  }
  return out;
}

/** The last `n` bytes of the parts, copied. */
function lastBytes(parts: Uint8Array[], n: number): Uint8Array {
  const out = new Uint8Array(Math.min(n, parts.reduce((sum, p) => sum + p.length, 0)));
  let at = out.length;
  for (let i = parts.length - 1; i >= 0 && at > 0; i--) {
    const part = parts[i];
    const take = part.subarray(Math.max(0, part.length - at));
    at -= take.length;
    out.set(take, at);
  }
  return out;
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** Options of {@link serveStdio}. */
export interface StdioOptions {
  /**
   * Tools served (default: those of the Gleaner's `search.presentation`, or
   * every tool when the Gleaner is created lazily).
   */
  tools?: readonly AnyToolSpec[];
  /** Input stream (default: `Deno.stdin.readable`). */
  input?: ReadableStream<Uint8Array>;
  /** Output stream (default: `Deno.stdout.writable`). */
  output?: WritableStream<Uint8Array>;
  /** Largest line accepted (default {@link MAX_LINE_BYTES}). */
  maxLineBytes?: number;
  /** Serve stored memories as resources (default: see `createMcpServer`). */
  memoryResources?: boolean;
  /** The management token: serve the management views as resources (see `createMcpServer`). */
  manageToken?: string;
}

/**
 * Connects a new MCP server to this process's stdin/stdout and resolves when
 * the input ends (after answering every request already read). A line over
 * the limit fails that request only.
 *
 * @example
 * ```ts ignore
 * import { createGleaner } from "@gleaner/gleaner";
 * import { serveStdio } from "@gleaner/gleaner/mcp";
 * await serveStdio(await createGleaner());
 * ```
 */
export async function serveStdio(
  gleaner: GleanerSource,
  options: StdioOptions = {},
): Promise<void> {
  const tools = options.tools ??
    (typeof gleaner === "function" ? TOOLS : defaultToolsFor(gleaner.config) ??
      (await import("../lib/tools/presentations.ts")).toolsFor(gleaner.config));
  const server = createMcpServer(gleaner, tools, {
    ...(options.memoryResources !== undefined ? { memoryResources: options.memoryResources } : {}),
    ...(options.manageToken ? { manage: { token: options.manageToken } } : {}),
  });
  const transport = new LineTransport(
    options.input ?? Deno.stdin.readable,
    options.output ?? Deno.stdout.writable,
    options.maxLineBytes,
  );
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(transport);
  await closed;
}
