import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Relative asset URLs: the build can be served from any path or port. The map view is its own
// chunk, loaded when the Map tab opens; MapLibre alone is past Vite's default warning size.
export default defineConfig({ base: './', plugins: [react()], build: { chunkSizeWarningLimit: 1500 } });
