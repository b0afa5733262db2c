import type { Plugin } from 'esbuild';

/** esbuild plugin: the library's load-on-first-use modules bundled and ready at start (self-contained Node bundles). */
export declare function eagerModulesPlugin(): Plugin;
