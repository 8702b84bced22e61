import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Relative asset URLs: the build can be served from any path or port.
export default defineConfig({ base: './', plugins: [react()] });
