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
  /** Answers up to this many bytes are compressed in one synchronous zlib call; larger ones stream. */
  syncMaxBytes: number;
}

// The cheapest levels: zlib takes 0.18 ms per 57 KB scenario-1 page at br 1 or gzip 1 (0.45 ms at
// br 4), but the whole response still costs 14-18% more CPU (bench/results/2026-11-23-0433-*).
// Answers up to 512 KB are compressed in one call: the plugin's own limit is 8 KB on two cores, so
// every scenario-1 page went through a zlib stream, whose set-up costs more than zlib's work on it.
// 512 KB at br 1 holds the event loop for about 1-2 ms; bigger pages (a 5,000-item page, 2.7 MB)
// still stream on the thread pool. Whether this meets the 10% target is not shown yet
// (bench/results/2026-11-23-0633-*, run at a load average of 19-24).
export const DEFAULT_COMPRESSION: CompressionConfig = {
  brotliQuality: 1,
  gzipLevel: 1,
  syncMaxBytes: 512 * 1024,
};

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
    syncThreshold: cfg.syncMaxBytes,
    globalDecompression: false,
  });
}
