import { constants } from 'node:zlib';
import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/**
 * Compression levels: brotli quality 0–11, gzip level 1–9. The defaults are set from
 * `npm run bench -- --compression` (scenario 1's throughput with compression within 10% of
 * without; bench/results/ has the run).
 */
export interface CompressionConfig {
  brotliQuality: number;
  gzipLevel: number;
}

// The cheapest levels: zlib takes 0.18 ms per 57 KB scenario-1 page at br 1 or gzip 1 (0.45 ms at
// br 4), but the whole response still costs 14-18% more CPU (bench/results/2026-11-23-0433-*).
export const DEFAULT_COMPRESSION: CompressionConfig = { brotliQuality: 1, gzipLevel: 1 };

/** Responses smaller than this go uncompressed: a small error body gains nothing. */
export const COMPRESSION_THRESHOLD = 1024;

/**
 * br and gzip for responses of at least COMPRESSION_THRESHOLD bytes, negotiated by
 * Accept-Encoding (br preferred). Request bodies are never decompressed: a compressed body would
 * get past the body limit as a small one.
 */
export function installCompression(app: FastifyInstance, cfg: CompressionConfig = DEFAULT_COMPRESSION): void {
  void app.register(compress, {
    global: true,
    encodings: ['br', 'gzip'],
    threshold: COMPRESSION_THRESHOLD,
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: cfg.brotliQuality } },
    zlibOptions: { level: cfg.gzipLevel },
    globalDecompression: false,
  });
}
