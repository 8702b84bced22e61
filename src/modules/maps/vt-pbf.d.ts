/** vt-pbf ships no types: the one function the maps module calls. */
declare module 'vt-pbf' {
  const vtpbf: {
    /** Encodes geojson-vt tiles, one layer per key, as one MVT (protobuf) tile. */
    fromGeojsonVt(
      layers: Record<string, { features: readonly unknown[] }>,
      options?: { version?: number; extent?: number },
    ): Uint8Array;
  };
  export default vtpbf;
}
