import { constants } from 'node:zlib';
import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/**
 * Compression levels: brotli quality 0–11, gzip level 1–9. The defaults are set from
 * `npm run bench -- --compression`, so that compression costs ordinary pages little throughput
 * (docs/decisions.md#compression-at-the-cheapest-levels).
 */
export interface CompressionConfig {
  brotliQuality: number;
  gzipLevel: number;
  /** Answers up to this many bytes are compressed in one synchronous zlib call; larger ones stream. */
  syncMaxBytes: number;
}

// The cheapest levels: zlib's time per page grows with the level, and every answer pays it.
// Answers up to 512 KB are compressed in one call: the plugin's own limit is 8 KB on two cores, so
// every scenario-1 page went through a zlib stream, whose set-up costs more than zlib's work on it.
// Up to that size one call holds the event loop only briefly; bigger pages still stream on the
// thread pool (docs/decisions.md#compression-at-the-cheapest-levels).
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
