// Types of bundle-spec.mjs, for the TypeScript that imports it (the example build and its test).
import type { Plugin } from 'esbuild';
import type { OpenApiDocument } from '../../spec/openapi-types.js';

export declare const defaultSpecPath: string;
export declare const specSpecifiers: string[];
export declare function readSpecDocument(specPath?: string): Promise<OpenApiDocument>;
export declare function specModuleSource(document: unknown, source?: string): string;
export declare function specDeclarationSource(typesFrom?: string): string;
export declare function bundleSpec(options: { specPath?: string; outDir: string; typesFrom?: string }): Promise<{ js: string; dts: string }>;
export declare function petstoreSpecPlugin(options?: { specPath?: string }): Plugin;
